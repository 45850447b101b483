// csv.cpp — (read-csv PATH [HEADER?] [OPTION VALUE]...), (read-table ...) and
// (write-csv PATH T) (docs/data-files.md).
//
// Invariant: the readers hold what they keep (read-csv's numbers, read-table's
// cells of the columns asked for) and at most one cell of text besides, never
// the whole text: the bytes stream through zlib (gzopen reads a gzip file,
// found by its magic bytes 1f 8b, and any other file as it is) into a parser
// that keeps the current cell only, capped (kMaxCell bytes for a number,
// kMaxText for text). So memory follows the number of cells, never a damaged
// line's length, and a gzip bomb costs what its cells cost. Every error names
// the file and the line, and a cell's error also the column (the byte where
// the cell starts, 1-based) and the field number.
#include <fcntl.h>
#include <fmt/format.h>
#include <locale.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <string>
#include <vector>

#include "runtime/eval.h"
#include "runtime/printer.h"
#include "runtime/tensor.h"
#include "stdlib/builtins.h"
#include "stdlib/file_write.h"
#include "stdlib/port_args.h"
#include "stdlib/tensor_args.h"

namespace kiln {
namespace {

// Longer than any number worth reading (strtod's longest useful input is a
// few dozen digits); a longer cell is reported by its first bytes.
constexpr size_t kMaxCell = 1000;
constexpr size_t kShownCell = 60;  // how much of a bad cell an error quotes
constexpr unsigned kChunk = 1 << 16;

// strtod in the C locale whatever setlocale the process did: "1.5" is a number
// everywhere, "1,5" nowhere.
locale_t c_locale() {
  static locale_t loc = newlocale(LC_ALL_MASK, "C", locale_t(0));
  return loc;
}

bool is_blank(unsigned char c) { return c == ' ' || c == '\t' || c == '\r'; }

// A UTF-8 byte order mark, which spreadsheets write first: skipped.
constexpr unsigned char kBom[] = {0xef, 0xbb, 0xbf};

// What a read-table text cell may hold: memory follows the number of cells.
constexpr size_t kMaxText = 1 << 16;

enum class Output { numbers, table };

struct CsvOptions {
  bool header = false;
  unsigned char delimiter = ',';
  std::vector<int64_t> columns;  // the file's column numbers in the order wanted; empty: all
};

struct CsvParser {
  const char *who = "read-csv";
  Output output = Output::numbers;
  std::string path;
  CsvOptions opt;
  bool whitespace = false;       // the delimiter is a space or tab: runs of blanks are one separator
  bool skip_header = false;      // read-csv: the first line is skipped unread
  bool header_next = false;      // read-table: the next line with text holds the names
  std::vector<int64_t> slot_of;  // field index -> place in the output, -1 not wanted (with 'columns)
  int64_t slots = -1;            // values per row: the wanted columns, or the width
  int64_t bytes = 0;             // read so far
  int bom_matched = 0;           // leading bytes that matched kBom; -1 once past it
  int64_t width = -1;            // fields per row, from the first data row
  int64_t width_line = 0;        // the line that set it
  int64_t header_line = 0;       // read-table: the line the names came from
  int64_t line = 1;              // of the next byte
  int64_t col = 1;               // of the next byte
  int64_t field = 1;             // within the current line
  std::string cell;              // the current cell from its first non-blank byte, capped
  size_t cell_len = 0;           // its real length (more than cell.size() when capped)
  size_t pending_blanks = 0;     // blanks after the cell's text so far
  int64_t cell_col = 0;          // where it started; 0 while nothing but blanks was seen
  int64_t cell_line = 0;         // the line it started on (a quoted cell can span lines)
  int64_t field_col = 1;         // where the field started (for an empty field)
  bool line_has_text = false;
  bool in_quotes = false;     // inside a "quoted" cell
  bool quote_closed = false;  // just after its closing quote ("" is a quote inside)
  // What was read: read-csv's numbers row by row, or read-table's cells column by column.
  std::vector<double> values;
  std::vector<std::vector<std::string>> text;
  std::vector<std::string> names, all_names;
  std::vector<double> row_values;
  std::vector<std::string> row_text;

  size_t cap() const { return output == Output::table ? kMaxText : kMaxCell; }

  [[noreturn]] void cell_error(std::string_view what_else = {}) {
    bool cut = cell.size() > kShownCell;
    Value shown = make_string(cut ? cell.substr(0, kShownCell) + "..." : cell);
    std::string what = !what_else.empty()    ? std::string(what_else)
                       : cell_len > kMaxCell ? fmt::format("is too long for a number ({} bytes)", cell_len)
                                             : std::string("is not a number");
    throw_errorf("{}: {}:{}:{}: field {} {}: {}", who, path, cell_line, cell_col, field, what,
                 write_string(shown));
  }

  int64_t slot() const {
    if (opt.columns.empty()) return field - 1;
    return field - 1 < int64_t(slot_of.size()) ? slot_of[size_t(field - 1)] : -1;
  }

  void reset_cell() {
    cell.clear();
    cell_len = 0;
    pending_blanks = 0;
    cell_col = 0;
  }

  void end_cell() {
    if (header_next) {
      all_names.push_back(cell);
      if (cell_len > cell.size()) cell_error(fmt::format("is longer than {} bytes", kMaxText));
    } else if (int64_t k = slot(); k >= 0) {
      if (output == Output::numbers) {
        if (cell_col == 0) throw_errorf("{}: {}:{}:{}: field {} is empty", who, path, line, field_col, field);
        if (cell_len > cell.size()) cell_error();
        char *end = nullptr;
        double d = strtod_l(cell.c_str(), &end, c_locale());
        if (end != cell.c_str() + cell.size() || cell.empty()) cell_error();
        if (int64_t(row_values.size()) <= k) row_values.resize(size_t(k) + 1);
        row_values[size_t(k)] = d;
      } else {
        if (cell_len > cell.size()) cell_error(fmt::format("is longer than {} bytes", kMaxText));
        if (int64_t(row_text.size()) <= k) row_text.resize(size_t(k) + 1);
        row_text[size_t(k)] = cell;
      }
    }
    reset_cell();
  }

  // The first data row fixes the width; the wanted columns must be inside it.
  void check_width() {
    if (width < 0) {
      width = field;
      width_line = line;
      for (int64_t c : opt.columns)
        if (c >= width)
          throw_errorf(
              "{}: {}:{}: column {} was asked for, but the line has {} field{} (columns count from 0)", who,
              path, line, c, width, width == 1 ? "" : "s");
      slots = opt.columns.empty() ? width : int64_t(opt.columns.size());
      if (output == Output::table) text.resize(size_t(slots));
      if (!all_names.empty() && int64_t(all_names.size()) != width)
        throw_errorf("{}: {}:{}: {} field{}, but the header (line {}) has {} name{}", who, path, line, width,
                     width == 1 ? "" : "s", header_line, all_names.size(), all_names.size() == 1 ? "" : "s");
    } else if (field != width) {
      throw_errorf("{}: {}:{}: {} field{}, but line {} has {}", who, path, line, field, field == 1 ? "" : "s",
                   width_line, width);
    }
  }

  void end_line() {
    if (!line_has_text) return;  // a blank line
    if (!whitespace || cell_col != 0) end_cell();
    else field--;  // blanks after the last cell: no further field
    if (header_next) {
      header_next = false;
      header_line = line;
      return;
    }
    check_width();
    if (output == Output::numbers) {
      values.insert(values.end(), row_values.begin(), row_values.begin() + slots);
    } else {
      for (int64_t k = 0; k < slots; k++) text[size_t(k)].push_back(std::move(row_text[size_t(k)]));
    }
  }

  void add(char c) {
    if (cell.size() < cap()) cell += c;
    cell_len++;
  }

  void start_cell() {
    line_has_text = true;
    if (cell_col == 0) {
      cell_col = col;
      cell_line = line;
    }
  }

  void next_field() {
    end_cell();
    field++;
    field_col = col + 1;
  }

  void new_line() {
    line++;
    col = 1;
    field = 1;
    field_col = 1;
    line_has_text = false;
  }

  void process(unsigned char c) {
    if (skip_header) {
      if (c == '\n') {
        skip_header = false;
        new_line();
      } else {
        col++;
      }
      return;
    }
    if (in_quotes) {
      if (c == '"') {
        in_quotes = false;
        quote_closed = true;
      } else {
        add(char(c));
      }
      if (c == '\n') {
        line++;
        col = 1;
      } else {
        col++;
      }
      return;
    }
    if (quote_closed) {
      quote_closed = false;
      if (c == '"') {  // "" inside quotes: one quote, and still quoted
        add('"');
        in_quotes = true;
        col++;
        return;
      }
      if (c != '\n' && c != opt.delimiter && !is_blank(c)) cell_error("has text after its closing quote");
    }
    if (c == '\n') {
      end_line();
      new_line();
      return;
    }
    if (whitespace && (c == ' ' || c == '\t' || c == '\r')) {
      if (cell_col != 0) next_field();
      else field_col = col + 1;
    } else if (c == opt.delimiter) {
      line_has_text = true;
      next_field();
    } else if (is_blank(c)) {
      if (cell_col != 0) pending_blanks++;
    } else if (c == '"' && cell_col == 0) {
      start_cell();
      in_quotes = true;
    } else {
      start_cell();
      for (; pending_blanks > 0; pending_blanks--) add(' ');
      add(char(c));
    }
    col++;
  }

  void feed(const unsigned char *p, size_t n) {
    bytes += int64_t(n);
    for (size_t i = 0; i < n; i++) {
      if (bom_matched >= 0) {
        if (p[i] == kBom[bom_matched]) {
          if (++bom_matched == 3) bom_matched = -1;
          continue;
        }
        replay_bom();
      }
      process(p[i]);
    }
  }

  // The bytes that looked like the start of a mark but were not one are text.
  void replay_bom() {
    int n = bom_matched;
    bom_matched = -1;
    for (int k = 0; k < n; k++) process(kBom[k]);
  }

  // After the last byte: a last line without its newline still counts.
  void finish() {
    if (bom_matched > 0) replay_bom();
    if (in_quotes)
      throw_errorf("{}: {}:{}:{}: field {}: the quote that opens it is never closed", who, path, cell_line,
                   cell_col, field);
    quote_closed = false;
    if (!skip_header) end_line();
  }
};

// Reads up to buf.size() bytes of fd, fewer only at the end of the file.
size_t read_full(int fd, std::vector<unsigned char> &buf, const char *who, const std::string &path) {
  size_t got = 0;
  while (got < buf.size()) {
    ssize_t r = read(fd, buf.data() + got, buf.size() - got);
    if (r == 0) break;
    if (r < 0) {
      if (errno == EINTR) {
        check_interrupt();
        continue;
      }
      file_error(fmt::format("{}: cannot read {}: {}", who, path, std::strerror(errno)));
    }
    got += size_t(r);
  }
  return got;
}

struct Inflater {
  z_stream zs{};
  bool open = false;
  ~Inflater() {
    if (open) inflateEnd(&zs);
  }
};

// Inflates the gzip members that make up the file (several read as one text, as
// zcat reads them). zlib's gzread would stop quietly at bytes after a member
// that do not start another one, and the rows they hold would be lost without
// a word: here they are an error naming the byte where they start.
void parse_gzip(CsvParser &ps, int fd, std::vector<unsigned char> &in, size_t have) {
  Inflater inf;
  if (inflateInit2(&inf.zs, 15 + 16) != Z_OK)
    throw_errorf("{}: cannot read {}: out of memory", ps.who, ps.path);
  inf.open = true;
  z_stream &zs = inf.zs;
  std::vector<unsigned char> out(kChunk);
  int64_t read_total = int64_t(have);  // file bytes read so far
  zs.next_in = in.data();
  zs.avail_in = unsigned(have);
  bool in_member = true;
  for (;;) {
    check_interrupt();
    if (zs.avail_in < 2 && !(in_member && zs.avail_in == 1)) {
      // Refill, keeping an unused byte: between members two are needed to see the magic.
      size_t keep = zs.avail_in;
      if (keep) in[0] = *zs.next_in;
      std::vector<unsigned char> more(in.size() - keep);
      size_t got = read_full(fd, more, ps.who, ps.path);
      std::memcpy(in.data() + keep, more.data(), got);
      read_total += int64_t(got);
      zs.next_in = in.data();
      zs.avail_in = unsigned(keep + got);
      if (zs.avail_in == 0) break;
    }
    if (!in_member) {
      if (zs.avail_in < 2 || zs.next_in[0] != 0x1f || zs.next_in[1] != 0x8b)
        throw_errorf("{}: {}: damaged gzip data: the gzip data ends after {} bytes, but the file goes on",
                     ps.who, ps.path, read_total - int64_t(zs.avail_in));
      inflateReset(&zs);
      in_member = true;
    }
    zs.next_out = out.data();
    zs.avail_out = kChunk;
    int r = inflate(&zs, Z_NO_FLUSH);
    ps.feed(out.data(), kChunk - zs.avail_out);
    if (r == Z_STREAM_END) {
      in_member = false;
    } else if (r == Z_MEM_ERROR) {
      throw std::bad_alloc();
    } else if (r != Z_OK && r != Z_BUF_ERROR) {
      throw_errorf("{}: {}: damaged gzip data: {}", ps.who, ps.path, zs.msg ? zs.msg : "unknown error");
    }
  }
  // The input stopped inside a gzip stream.
  if (in_member) throw_errorf("{}: {}: damaged gzip data: the file is truncated", ps.who, ps.path);
}

// Reads PATH into the parser, a chunk at a time: a file that starts with gzip's
// magic bytes through zlib's inflate, any other as it is.
void parse_file(CsvParser &ps) {
  int fd = open(ps.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) file_error(fmt::format("{}: cannot open {}: {}", ps.who, ps.path, std::strerror(errno)));
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  struct stat st;
  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
    file_error(fmt::format("{}: cannot read {}: {}", ps.who, ps.path, std::strerror(EISDIR)));
  std::vector<unsigned char> buf(kChunk);
  size_t got = read_full(fd, buf, ps.who, ps.path);
  if (got >= 2 && buf[0] == 0x1f && buf[1] == 0x8b) return parse_gzip(ps, fd, buf, got);
  while (got > 0) {
    ps.feed(buf.data(), got);
    check_interrupt();
    got = read_full(fd, buf, ps.who, ps.path);
  }
}

// [HEADER?] [OPTION VALUE]...: HEADER? is left out when the first extra
// argument is an option's name.
CsvOptions parse_options(const char *who, int argc, Value *argv) {
  CsvOptions o;
  Value delimiter = intern("delimiter"), columns = intern("columns");
  int i = 1;
  if (argc > 1 && argv[1] != delimiter && argv[1] != columns) {
    o.header = argv[1] != FALSE_V;
    i = 2;
  }
  bool seen_delimiter = false, seen_columns = false;
  for (; i < argc; i += 2) {
    Value name = argv[i];
    if (name != delimiter && name != columns)
      type_error(who, i + 1, "the option 'delimiter or 'columns", name);
    bool &seen = name == delimiter ? seen_delimiter : seen_columns;
    if (seen) throw_errorf("{}: option '{} given twice", who, symbol_name(name));
    seen = true;
    if (i + 1 >= argc) throw_errorf("{}: option '{} needs a value", who, symbol_name(name));
    Value v = argv[i + 1];
    if (name == delimiter) {
      if (!is_char(v) || char_of(v) >= 0x80 || char_of(v) == '\n' || char_of(v) == '"' || char_of(v) == '\r')
        type_error(who, i + 2, "an ASCII character other than newline, return and double quote", v);
      o.delimiter = (unsigned char)char_of(v);
    } else {
      const char *want = "a non-empty list of distinct column numbers (0, 1, ...)";
      Value p = v;
      for (; is_pair(p); p = cdr(p)) {
        Value c = car(p);
        if (!is_int(c) || int_of(c) < 0) type_error(who, i + 2, want, v);
        for (int64_t prev : o.columns)
          if (prev == int_of(c)) type_error(who, i + 2, want, v);
        o.columns.push_back(int_of(c));
        if (o.columns.size() > (size_t(1) << 20)) type_error(who, i + 2, want, v);
      }
      if (p != NIL || o.columns.empty()) type_error(who, i + 2, want, v);
    }
  }
  return o;
}

void read_into(CsvParser &ps, int argc, Value *argv) {
  ps.path = arg_path(ps.who, 1, argv[0]);
  ps.opt = parse_options(ps.who, argc, argv);
  ps.whitespace = ps.opt.delimiter == ' ' || ps.opt.delimiter == '\t';
  if (ps.output == Output::numbers) ps.skip_header = ps.opt.header;
  else ps.header_next = ps.opt.header;
  int64_t highest = -1;
  for (int64_t c : ps.opt.columns) highest = std::max(highest, c);
  ps.slot_of.assign(size_t(highest + 1), -1);
  for (size_t k = 0; k < ps.opt.columns.size(); k++) ps.slot_of[size_t(ps.opt.columns[k])] = int64_t(k);
  try {
    parse_file(ps);
  } catch (const std::bad_alloc &) {
    // The cells outgrew what malloc can give: Kiln's error, which guard catches.
    throw_errorf("{}: {}: out of memory after line {}", ps.who, ps.path, ps.line);
  }
  ps.finish();
  if (ps.bytes == 0) throw_errorf("{}: {}: empty file", ps.who, ps.path);
  if (ps.width < 0) throw_errorf("{}: {}: no data rows", ps.who, ps.path);
}

Value b_read_csv(int argc, Value *argv) {
  CsvParser ps;
  read_into(ps, argc, argv);
  Shape s;
  s.rank = 2;
  s.dim[0] = int64_t(ps.values.size()) / ps.slots;
  s.dim[1] = ps.slots;
  Tensor *t = alloc_tensor(s);
  std::memcpy(t->data, ps.values.data(), ps.values.size() * sizeof(double));
  return from_ptr(t);
}

// A column is numbers when every cell that is not empty reads whole as one
// (an empty cell is then NaN, a missing value); otherwise it is text.
Value column_value(const std::vector<std::string> &cells) {
  std::vector<double> numbers(cells.size());
  bool any = false;
  for (size_t i = 0; i < cells.size(); i++) {
    const std::string &c = cells[i];
    if (c.empty()) {
      numbers[i] = std::numeric_limits<double>::quiet_NaN();
      continue;
    }
    char *end = nullptr;
    numbers[i] = strtod_l(c.c_str(), &end, c_locale());
    if (end != c.c_str() + c.size() || std::isspace((unsigned char)c[0])) {
      Value v = make_vector(int64_t(cells.size()), FALSE_V);
      for (size_t j = 0; j < cells.size(); j++) {
        if ((j & 0xffff) == 0) check_interrupt();
        Value str = make_string(cells[j]);
        as<Vector>(v)->items[j] = str;
      }
      return v;
    }
    any = true;
  }
  if (!any) return make_vector(int64_t(cells.size()), make_string(""));
  Shape s;
  s.rank = 1;
  s.dim[0] = int64_t(cells.size());
  Tensor *t = alloc_tensor(s);
  std::memcpy(t->data, numbers.data(), numbers.size() * sizeof(double));
  return from_ptr(t);
}

// (read-table PATH [HEADER?] [OPTION VALUE]...) -> (NAMES COLUMN ...).
Value b_read_table(int argc, Value *argv) {
  CsvParser ps;
  ps.who = "read-table";
  ps.output = Output::table;
  read_into(ps, argc, argv);
  Value columns = NIL;
  for (size_t k = ps.text.size(); k-- > 0;) {
    Value c = column_value(ps.text[k]);
    ps.text[k].clear();
    columns = cons(c, columns);
  }
  Value names = NIL;
  for (size_t k = size_t(ps.slots); k-- > 0;) {
    int64_t file_col = ps.opt.columns.empty() ? int64_t(k) : ps.opt.columns[k];
    Value n = make_string(ps.all_names.empty() ? std::to_string(file_col) : ps.all_names[size_t(file_col)]);
    names = cons(n, names);
  }
  return cons(names, columns);
}

// Shortest digits that read back as the same double (fmt's default), in forms
// strtod and NumPy's loadtxt both read: 0.1, 1e+20, inf, -inf, nan.
void put_number(std::string &out, double d) {
  if (d != d) out += "nan";
  else fmt::format_to(std::back_inserter(out), "{}", d);
}

Value b_write_csv(int, Value *argv) {
  std::string path = arg_path("write-csv", 1, argv[0]);
  Tensor *t = arg_tensor("write-csv", 2, argv[1]);
  if (t->shape.rank < 1 || t->shape.rank > 2)
    type_error("write-csv", 2, "a rank-1 or rank-2 tensor", argv[1]);
  // A rank-1 tensor is one column, as NumPy's savetxt writes it.
  int64_t cols = t->shape.rank == 2 ? t->shape.dim[1] : 1;
  const double *d = t->data;
  int64_t size = t->size;
  write_file_atomically("write-csv", path, [d, size, cols](FILE *f) {
    std::string out;
    for (int64_t i = 0; i < size; i++) {
      put_number(out, d[i]);
      out += (i + 1) % cols == 0 ? '\n' : ',';
      if (out.size() >= kChunk || i + 1 == size) {
        check_interrupt();
        if (std::fwrite(out.data(), 1, out.size(), f) != out.size()) return false;
        out.clear();
      }
    }
    return true;
  });
  return UNSPEC;
}

BuiltinRegistrar csv_registrar([] {
  defbuiltin(
      "read-csv", 1, 6, b_read_csv,
      "(read-csv PATH [HEADER?] ['delimiter CHAR] ['columns (N ...)]): a rank-2 tensor of the numbers "
      "in a CSV file, one row per line; a gzip-compressed file is read as its text; HEADER? true skips "
      "the first line; a space or tab delimiter makes any run of blanks one separator; 'columns keeps "
      "those columns (from 0) in that order.");
  defbuiltin(
      "read-table", 1, 6, b_read_table,
      "(read-table PATH [HEADER?] ['delimiter CHAR] ['columns (N ...)]): (NAMES COLUMN ...), NAMES the "
      "header's names (or \"0\", \"1\", ...), a column of numbers a rank-1 tensor (an empty cell NaN), "
      "a column with text a vector of strings.");
  defbuiltin("write-csv", 2, 2, b_write_csv,
             "(write-csv PATH T): a rank-2 tensor's rows (a rank-1 tensor as one column) to PATH as CSV, "
             "each number in the shortest form that reads back exactly.");
});

}  // namespace
}  // namespace kiln
