// syntax_rules.cpp — syntax-rules macros: matching, ellipses and renaming.
//
// Hygiene, both directions, approximately:
// - identifiers that a template introduces in binding positions (lambda
//   parameters, let/let*/letrec/do variables, named-let names) are renamed to
//   fresh uninterned symbols at every expansion, so they cannot capture the
//   user's variables;
// - a macro defined at top level refers, through every other template
//   identifier, to the top-level meaning of that name, even where the use site
//   binds the name locally: such an identifier becomes an ALIAS, an uninterned
//   symbol whose alias_of is the original, which no local scope contains, so
//   the analyser resolves it (variable, special form, macro, `else`, `=>`) as
//   the top-level name. Where the name is not shadowed at the use site the
//   template keeps the plain symbol, so nothing changes there.
// Macros defined in a local scope keep use-site meaning for free identifiers.
#include "equal.h"
#include "eval_internal.h"
#include "printer.h"
#include "srcloc.h"

namespace kiln {

namespace {

struct SyntaxRules {
  ObjHeader h;  // T_OPAQUE, flags = kRulesFlag
  Value name;
  Value ellipsis;
  Value literals;  // list of symbols
  Value rules;     // list of (pattern template binders)
  Value doc;       // string, or NOVALUE
  SrcLoc loc;      // of the form that defined it
};
constexpr uint8_t kRulesFlag = 1;
constexpr uint8_t kSeqFlag = 2;

// The values an ellipsis pattern variable matched, one per repetition.
struct MatchSeq {
  ObjHeader h;  // T_OPAQUE, flags = kSeqFlag
  Value items;  // list, in order
};

bool is_seq(Value v) { return has_type(v, T_OPAQUE) && hdr(v)->flags == kSeqFlag; }

Value make_seq(Value items) {
  MatchSeq *s = alloc_obj<MatchSeq>(T_OPAQUE);
  s->h.flags = kSeqFlag;
  s->items = items;
  return from_ptr(s);
}

Value reverse_list(Value l) {
  Value r = NIL;
  for (; is_pair(l); l = cdr(l)) r = cons(car(l), r);
  return r;
}

int length_of(Value l) {
  int n = 0;
  for (; is_pair(l); l = cdr(l)) n++;
  return n;
}

class Expander {
 public:
  explicit Expander(SyntaxRules *r, const std::function<bool(Value)> *shadowed = nullptr)
      : r_(r), shadowed_(shadowed) {}

  bool is_ellipsis(Value v) const { return v == r_->ellipsis; }
  bool is_literal(Value v) const {
    for (Value p = r_->literals; is_pair(p); p = cdr(p))
      if (car(p) == v) return true;
    return false;
  }

  // Pattern variables of `pat` (excluding the keyword position handled by caller).
  void pattern_vars(Value pat, Value *out) {
    check_stack();
    if (is_symbol(pat)) {
      if (!is_ellipsis(pat) && !is_literal(pat) && pat != intern("_")) *out = cons(pat, *out);
    } else if (is_pair(pat)) {
      pattern_vars(car(pat), out);
      pattern_vars(cdr(pat), out);
    } else if (is_vector(pat)) {
      Vector *v = as<Vector>(pat);
      for (int64_t i = 0; i < v->len; i++) pattern_vars(v->items[i], out);
    }
  }

  bool match(Value pat, Value form, Value *b) {
    check_stack();
    if (is_symbol(pat)) {
      if (is_literal(pat)) return form == pat;
      if (pat == intern("_")) return true;
      *b = cons(cons(pat, form), *b);
      return true;
    }
    if (is_pair(pat)) {
      if (is_pair(cdr(pat)) && is_ellipsis(car(cdr(pat)))) {
        Value after = cdr(cdr(pat));
        int min_after = 0;
        Value q = after;
        for (; is_pair(q); q = cdr(q)) min_after++;
        int avail = 0;
        Value f = form;
        for (; is_pair(f); f = cdr(f)) avail++;
        int reps = avail - min_after;
        if (reps < 0) return false;
        Value vars = NIL;
        pattern_vars(car(pat), &vars);
        Value per_var = NIL;  // reversed lists per var, parallel to vars
        for (Value v = vars; is_pair(v); v = cdr(v)) per_var = cons(NIL, per_var);
        Value fp = form;
        for (int i = 0; i < reps; i++, fp = cdr(fp)) {
          Value sub = NIL;
          if (!match(car(pat), car(fp), &sub)) return false;
          Value pv = per_var;
          for (Value v = vars; is_pair(v); v = cdr(v), pv = cdr(pv)) {
            Value hit = NOVALUE;
            for (Value s = sub; is_pair(s); s = cdr(s))
              if (car(car(s)) == car(v)) {
                hit = cdr(car(s));
                break;
              }
            as<Pair>(pv)->car = cons(hit, car(pv));
          }
        }
        Value pv = per_var;
        for (Value v = vars; is_pair(v); v = cdr(v), pv = cdr(pv))
          *b = cons(cons(car(v), make_seq(reverse_list(car(pv)))), *b);
        return match(after, fp, b);
      }
      if (!is_pair(form)) return false;
      return match(car(pat), car(form), b) && match(cdr(pat), cdr(form), b);
    }
    if (pat == NIL) return form == NIL;
    if (is_vector(pat)) {
      if (!is_vector(form)) return false;
      Value pl = NIL, fl = NIL;
      Vector *pv = as<Vector>(pat), *fv = as<Vector>(form);
      for (int64_t i = pv->len - 1; i >= 0; i--) pl = cons(pv->items[i], pl);
      for (int64_t i = fv->len - 1; i >= 0; i--) fl = cons(fv->items[i], fl);
      return match(pl, fl, b);
    }
    // Literal data: numbers, strings, booleans, chars.
    if (pat == form) return true;
    if (is_string(pat) && is_string(form)) return string_view_of(pat) == string_view_of(form);
    if (is_number(pat) && is_number(form)) return eqv(pat, form);
    return false;
  }

  Value lookup(Value b, Value var, bool *found) {
    for (Value p = b; is_pair(p); p = cdr(p))
      if (car(car(p)) == var) {
        *found = true;
        return cdr(car(p));
      }
    *found = false;
    return NOVALUE;
  }

  // Variables in `tmpl` bound to sequences in `b` (they drive an ellipsis).
  void seq_vars(Value tmpl, Value b, Value *out) {
    check_stack();
    if (is_symbol(tmpl)) {
      bool f;
      Value v = lookup(b, tmpl, &f);
      if (f && is_seq(v)) *out = cons(tmpl, *out);
    } else if (is_pair(tmpl)) {
      seq_vars(car(tmpl), b, out);
      seq_vars(cdr(tmpl), b, out);
    } else if (is_vector(tmpl)) {
      Vector *v = as<Vector>(tmpl);
      for (int64_t i = 0; i < v->len; i++) seq_vars(v->items[i], b, out);
    }
  }

  Value rename(Value s) {
    for (Value p = renames_; is_pair(p); p = cdr(p))
      if (car(car(p)) == s) return cdr(car(p));
    Value fresh = gensym(std::string(symbol_name(s)) + ".");
    // The fresh name prints as the original; keep it readable in errors.
    as<Symbol>(fresh)->name = as<Symbol>(s)->name;
    renames_ = cons(cons(s, fresh), renames_);
    return fresh;
  }

  // The alias of a free template identifier, one per name per expansion.
  Value alias(Value s) {
    for (Value p = aliases_; is_pair(p); p = cdr(p))
      if (car(car(p)) == s) return cdr(car(p));
    Value a = gensym(std::string(symbol_name(s)) + ".");
    as<Symbol>(a)->name = as<Symbol>(s)->name;  // prints as the original
    as<Symbol>(a)->special = as<Symbol>(s)->special;
    as<Symbol>(a)->alias_of = s;
    aliases_ = cons(cons(s, a), aliases_);
    return a;
  }

  Value expand(Value t, Value b, Value binders, bool quoted) {
    check_stack();
    if (is_symbol(t)) {
      bool f;
      Value v = lookup(b, t, &f);
      if (f) {
        if (is_seq(v))
          throw_errorf("{}: pattern variable {} used without an ellipsis", symbol_name(r_->name),
                       symbol_name(t));
        return v;
      }
      if (!quoted)
        for (Value p = binders; is_pair(p); p = cdr(p))
          if (car(p) == t) return rename(t);
      if (!quoted && quasi_ == 0 && shadowed_ && *shadowed_ && (*shadowed_)(t)) return alias(t);
      return t;
    }
    if (is_pair(t)) {
      // (... ...) escapes an ellipsis.
      if (is_ellipsis(car(t)) && is_pair(cdr(t))) return expand_escaped(car(cdr(t)), b);
      if (car(t) == intern("quote") && !quoted) {
        return cons(car(t), expand(cdr(t), b, binders, true));
      }
      if (car(t) == intern("quasiquote") && !quoted) {
        // Symbols in quasiquoted data stay the plain symbols (an alias would
        // print the same but not be eq? to them).
        quasi_++;
        Value r = cons(car(t), expand(cdr(t), b, binders, quoted));
        quasi_--;
        return r;
      }
      if (is_pair(cdr(t)) && is_ellipsis(car(cdr(t)))) {
        Value sub = car(t);
        Value rest = cdr(cdr(t));
        int extra = 0;  // sub ... ... flattens one more level per extra ellipsis
        while (is_pair(rest) && is_ellipsis(car(rest))) {
          extra++;
          rest = cdr(rest);
        }
        Value results = expand_ellipsis(sub, b, binders, quoted, extra);
        Value tail = expand(rest, b, binders, quoted);
        Value out = tail;
        for (Value p = reverse_list(results); is_pair(p); p = cdr(p)) out = cons(car(p), out);
        return out;
      }
      return cons(expand(car(t), b, binders, quoted), expand(cdr(t), b, binders, quoted));
    }
    if (is_vector(t)) {
      Value l = NIL;
      Vector *v = as<Vector>(t);
      for (int64_t i = v->len - 1; i >= 0; i--) l = cons(v->items[i], l);
      Value e = expand(l, b, binders, quoted);
      int n = length_of(e);
      Value vec = make_vector(n, NIL);
      int i = 0;
      for (Value p = e; is_pair(p); p = cdr(p)) as<Vector>(vec)->items[i++] = car(p);
      return vec;
    }
    return t;
  }

  Value expand_escaped(Value t, Value b) {
    Value saved = r_->ellipsis;
    r_->ellipsis = NOVALUE;
    Value r = expand(t, b, NIL, false);
    r_->ellipsis = saved;
    return r;
  }

  // Expands `sub` once per repetition; returns the list of results.
  Value expand_ellipsis(Value sub, Value b, Value binders, bool quoted, int extra) {
    Value vars = NIL;
    seq_vars(sub, b, &vars);
    if (vars == NIL)
      throw_errorf("{}: no pattern variable before an ellipsis in the template", symbol_name(r_->name));
    int n = -1;
    for (Value v = vars; is_pair(v); v = cdr(v)) {
      bool f;
      int len = length_of(as<MatchSeq>(lookup(b, car(v), &f))->items);
      if (n < 0 || len < n) n = len;
    }
    Value out = NIL;
    for (int i = 0; i < n; i++) {
      Value nb = b;
      for (Value v = vars; is_pair(v); v = cdr(v)) {
        bool f;
        Value items = as<MatchSeq>(lookup(b, car(v), &f))->items;
        for (int k = 0; k < i; k++) items = cdr(items);
        nb = cons(cons(car(v), car(items)), nb);
      }
      if (extra > 0) {
        for (Value p = expand_ellipsis(sub, nb, binders, quoted, extra - 1); is_pair(p); p = cdr(p))
          out = cons(car(p), out);
      } else {
        out = cons(expand(sub, nb, binders, quoted), out);
      }
    }
    return reverse_list(out);
  }

 private:
  SyntaxRules *r_;
  const std::function<bool(Value)> *shadowed_;
  Value renames_ = NIL;
  Value aliases_ = NIL;
  int quasi_ = 0;
};

const char *const kBinderForms[] = {"lambda", "let", "let*", "letrec", "letrec*", "do", "named-lambda"};

void add_binder(Value s, Value patvars, Value *out) {
  if (!is_symbol(s)) return;
  for (Value p = patvars; is_pair(p); p = cdr(p))
    if (car(p) == s) return;
  *out = cons(s, *out);
}

// Identifiers the template binds itself (see the file comment).
void collect_binders(Value t, Value patvars, Value *out) {
  check_stack();
  if (!is_pair(t)) return;
  Value head = car(t);
  if (head == intern("quote")) return;
  bool binder = false;
  for (const char *f : kBinderForms)
    if (head == intern(f)) binder = true;
  if (binder && is_pair(cdr(t))) {
    Value spec = car(cdr(t));
    if (head == intern("lambda")) {
      Value p = spec;
      for (; is_pair(p); p = cdr(p)) add_binder(car(p), patvars, out);
      add_binder(p, patvars, out);
    } else if (head == intern("named-lambda")) {
      if (is_pair(spec))
        for (Value p = cdr(spec); is_pair(p); p = cdr(p)) add_binder(car(p), patvars, out);
    } else {
      if (is_symbol(spec) && head == intern("let")) {  // named let
        add_binder(spec, patvars, out);
        spec = is_pair(cdr(cdr(t))) ? car(cdr(cdr(t))) : NIL;
      }
      for (Value p = spec; is_pair(p); p = cdr(p)) {
        Value b = car(p);
        if (is_pair(b)) add_binder(car(b), patvars, out);
        else add_binder(b, patvars, out);
      }
    }
  }
  for (Value p = t; is_pair(p); p = cdr(p)) collect_binders(car(p), patvars, out);
}

}  // namespace

bool is_syntax_rules(Value v) { return has_type(v, T_OPAQUE) && hdr(v)->flags == kRulesFlag; }

Value make_syntax_rules(Value spec, Value form) {
  // (syntax-rules (literal...) (pattern template)...) or (syntax-rules ellipsis (literal...) ...)
  Value rest = cdr(spec);
  Value ellipsis = intern("...");
  if (is_pair(rest) && is_symbol(car(rest))) {
    ellipsis = car(rest);
    rest = cdr(rest);
  }
  if (!is_pair(rest)) throw_error_at(loc_of(form), "syntax-rules: missing literals list");
  SyntaxRules *r = alloc_obj<SyntaxRules>(T_OPAQUE);
  r->h.flags = kRulesFlag;
  r->ellipsis = ellipsis;
  r->literals = car(rest);
  r->name = is_pair(cdr(form)) && is_symbol(car(cdr(form))) ? car(cdr(form)) : intern("syntax-rules");
  r->loc = loc_of(form);
  r->doc = NOVALUE;
  Value p = cdr(rest);
  // A string before the rules documents the macro, as Guile allows.
  if (is_pair(p) && is_string(car(p))) {
    r->doc = car(p);
    p = cdr(p);
  }
  Expander ex(r);
  Value rules = NIL;
  for (; is_pair(p); p = cdr(p)) {
    Value rule = car(p);
    if (!is_pair(rule) || !is_pair(cdr(rule)) || !is_pair(car(rule)))
      throw_error_at(loc_of(form), fmt::format("syntax-rules: bad rule {}", error_value_string(rule)));
    Value pat = car(rule), tmpl = car(cdr(rule));
    Value patvars = NIL;
    ex.pattern_vars(cdr(pat), &patvars);
    Value binders = NIL;
    collect_binders(tmpl, patvars, &binders);
    rules = cons(cons(pat, cons(tmpl, cons(binders, NIL))), rules);
  }
  r->rules = reverse_list(rules);
  return from_ptr(r);
}

SyntaxRulesInfo describe_syntax_rules(Value rules_v) {
  SyntaxRules *r = as<SyntaxRules>(rules_v);
  Value patterns = NIL;
  for (Value p = r->rules; is_pair(p); p = cdr(p)) patterns = cons(car(car(p)), patterns);
  return {reverse_list(patterns), r->doc, r->loc};
}

Value expand_syntax_rules(Value rules_v, Value form, const std::function<bool(Value)> &shadowed) {
  SyntaxRules *r = as<SyntaxRules>(rules_v);
  for (Value p = r->rules; is_pair(p); p = cdr(p)) {
    Value rule = car(p);
    Value pat = car(rule), tmpl = car(cdr(rule)), binders = car(cdr(cdr(rule)));
    Expander ex(r, &shadowed);
    Value b = NIL;
    if (ex.match(cdr(pat), cdr(form), &b)) return ex.expand(tmpl, b, binders, false);
  }
  throw_error_at(loc_of(form), fmt::format("{}: no syntax-rules pattern matches {}", symbol_name(r->name),
                                           error_value_string(form)));
}

}  // namespace kiln
