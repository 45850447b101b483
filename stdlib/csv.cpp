// csv.cpp — (read-csv PATH [HEADER?]) and (write-csv PATH T) (docs/data-files.md).
//
// Invariant: read-csv holds the file's numbers and at most one cell of text at
// a time, never the whole text: the bytes stream through zlib (gzopen reads a
// gzip file, found by its magic bytes 1f 8b, and any other file as it is)
// into a parser that keeps the current cell only, capped at kMaxCell bytes. So
// memory follows the number of cells, never a damaged line's length, and a
// gzip bomb costs what its numbers cost. Every error names the file and the
// line, and a cell's error also the column (the byte where the cell starts,
// 1-based) and the field number.
#include <fcntl.h>
#include <fmt/format.h>
#include <locale.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "../runtime/eval.h"
#include "../runtime/printer.h"
#include "../runtime/tensor.h"
#include "builtins.h"
#include "file_write.h"
#include "port_args.h"
#include "tensor_args.h"

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

struct CsvParser {
  std::string path;
  bool skip_header = false;
  std::vector<double> values;
  int64_t bytes = 0;          // read so far
  int bom_matched = 0;        // leading bytes that matched kBom; -1 once past it
  int64_t width = -1;         // fields per row, from the first data row
  int64_t width_line = 0;     // the line that set it
  int64_t line = 1;           // of the next byte
  int64_t col = 1;            // of the next byte
  int64_t field = 1;          // within the current line
  std::string cell;           // the current cell from its first non-blank byte, capped
  size_t cell_len = 0;        // its real length (more than cell.size() when capped)
  size_t pending_blanks = 0;  // blanks after the cell's text so far
  int64_t cell_col = 0;       // where it started; 0 while nothing but blanks was seen
  int64_t field_col = 1;      // where the field started (for an empty field)
  bool line_has_text = false;

  [[noreturn]] void cell_error() {
    bool cut = cell.size() > kShownCell;
    Value shown = make_string(cut ? cell.substr(0, kShownCell) + "..." : cell);
    std::string what = cell_len > kMaxCell ? fmt::format("is too long for a number ({} bytes)", cell_len)
                                           : std::string("is not a number");
    throw_errorf("read-csv: {}:{}:{}: field {} {}: {}", path, line, cell_col, field, what,
                 write_string(shown));
  }

  void end_cell() {
    if (cell_col == 0) throw_errorf("read-csv: {}:{}:{}: field {} is empty", path, line, field_col, field);
    if (cell_len > cell.size()) cell_error();
    char *end = nullptr;
    double d = strtod_l(cell.c_str(), &end, c_locale());
    if (end != cell.c_str() + cell.size()) cell_error();
    values.push_back(d);
    cell.clear();
    cell_len = 0;
    pending_blanks = 0;
    cell_col = 0;
  }

  void end_line() {
    if (!line_has_text) return;  // a blank line
    end_cell();
    if (width < 0) {
      width = field;
      width_line = line;
    } else if (field != width) {
      throw_errorf("read-csv: {}:{}: {} field{}, but line {} has {}", path, line, field,
                   field == 1 ? "" : "s", width_line, width);
    }
  }

  void add(char c) {
    if (cell.size() < kMaxCell) cell += c;
    cell_len++;
  }

  void process(unsigned char c) {
    if (c == '\n') {
      if (skip_header) skip_header = false;
      else end_line();
      line++;
      col = 1;
      field = 1;
      field_col = 1;
      line_has_text = false;
      return;
    }
    if (skip_header) {
    } else if (c == ',') {
      line_has_text = true;
      end_cell();
      field++;
      field_col = col + 1;
    } else if (is_blank(c)) {
      if (cell_col != 0) pending_blanks++;
    } else {
      line_has_text = true;
      if (cell_col == 0) cell_col = col;
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
    if (!skip_header) end_line();
  }
};

// Reads up to buf.size() bytes of fd, fewer only at the end of the file.
size_t read_full(int fd, std::vector<unsigned char> &buf, const std::string &path) {
  size_t got = 0;
  while (got < buf.size()) {
    ssize_t r = read(fd, buf.data() + got, buf.size() - got);
    if (r == 0) break;
    if (r < 0) {
      if (errno == EINTR) {
        check_interrupt();
        continue;
      }
      file_error(fmt::format("read-csv: cannot read {}: {}", path, std::strerror(errno)));
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
    throw_errorf("read-csv: cannot read {}: out of memory", ps.path);
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
      size_t got = read_full(fd, more, ps.path);
      std::memcpy(in.data() + keep, more.data(), got);
      read_total += int64_t(got);
      zs.next_in = in.data();
      zs.avail_in = unsigned(keep + got);
      if (zs.avail_in == 0) break;
    }
    if (!in_member) {
      if (zs.avail_in < 2 || zs.next_in[0] != 0x1f || zs.next_in[1] != 0x8b)
        throw_errorf(
            "read-csv: {}: damaged gzip data: the gzip data ends after {} bytes, but the file goes on",
            ps.path, read_total - int64_t(zs.avail_in));
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
      throw_errorf("read-csv: {}: damaged gzip data: {}", ps.path, zs.msg ? zs.msg : "unknown error");
    }
  }
  // The input stopped inside a gzip stream.
  if (in_member) throw_errorf("read-csv: {}: damaged gzip data: the file is truncated", ps.path);
}

// Reads PATH into the parser, a chunk at a time: a file that starts with gzip's
// magic bytes through zlib's inflate, any other as it is.
void parse_file(CsvParser &ps) {
  int fd = open(ps.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) file_error(fmt::format("read-csv: cannot open {}: {}", ps.path, std::strerror(errno)));
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  struct stat st;
  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
    file_error(fmt::format("read-csv: cannot read {}: {}", ps.path, std::strerror(EISDIR)));
  std::vector<unsigned char> buf(kChunk);
  size_t got = read_full(fd, buf, ps.path);
  if (got >= 2 && buf[0] == 0x1f && buf[1] == 0x8b) return parse_gzip(ps, fd, buf, got);
  while (got > 0) {
    ps.feed(buf.data(), got);
    check_interrupt();
    got = read_full(fd, buf, ps.path);
  }
}

Value b_read_csv(int argc, Value *argv) {
  CsvParser ps;
  ps.path = arg_path("read-csv", 1, argv[0]);
  ps.skip_header = argc > 1 && argv[1] != FALSE_V;
  try {
    parse_file(ps);
  } catch (const std::bad_alloc &) {
    // The numbers outgrew what malloc can give: Kiln's error, which guard catches.
    throw_errorf("read-csv: {}: out of memory after {} numbers", ps.path, ps.values.size());
  }
  ps.finish();
  if (ps.bytes == 0) throw_errorf("read-csv: {}: empty file", ps.path);
  if (ps.width < 0) throw_errorf("read-csv: {}: no data rows", ps.path);
  Shape s;
  s.rank = 2;
  s.dim[0] = int64_t(ps.values.size()) / ps.width;
  s.dim[1] = ps.width;
  Tensor *t = alloc_tensor(s);
  std::memcpy(t->data, ps.values.data(), ps.values.size() * sizeof(double));
  return from_ptr(t);
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

BuiltinRegistrar reg([] {
  defbuiltin("read-csv", 1, 2, b_read_csv,
             "(read-csv PATH [HEADER?]): a rank-2 tensor of the numbers in a CSV file, one row per line; "
             "a gzip-compressed file is read as its text; HEADER? true skips the first line.");
  defbuiltin("write-csv", 2, 2, b_write_csv,
             "(write-csv PATH T): a rank-2 tensor's rows (a rank-1 tensor as one column) to PATH as CSV, "
             "each number in the shortest form that reads back exactly.");
});

}  // namespace
}  // namespace kiln
