// syntax_rules.cpp — syntax-rules macros: matching, ellipses and renaming.
//
// Hygiene, both directions:
// - identifiers that a template introduces in binding positions (lambda
//   parameters, let/let*/letrec/do variables, named-let names, names given
//   to define, define-values and define-syntax unless the use is at top
//   level) are renamed to fresh uninterned symbols at every expansion, so
//   they cannot capture the user's variables;
//   quasiquoted data is left alone, its unquoted code is not;
// - every other template identifier that would mean something else at the use
//   site than where the macro was defined (a local variable or macro of the
//   user's shadows it, or the use is in another library's environment)
//   becomes an ALIAS: an uninterned symbol whose alias_of is the original and
//   which records the macro's definition scope and environment. No user scope
//   binds it, so the analyser (lookup_scoped, global_cell) resolves it where
//   the macro was defined: a local variable there, a special form, a macro,
//   `else`, `=>` or a global. An alias the expansion itself binds (as a
//   `define` or a macro's parameter) is that binding. Where the meaning is the
//   same at both places the template keeps the plain symbol, so quoted data,
//   printing and top-level definitions see the names as written.
// - a literal (`else`, `=>`, ...) matches an identifier of the form only when
//   both have the same binding (R7RS free-identifier=?).
#include "runtime/equal.h"
#include "runtime/eval_internal.h"
#include "runtime/printer.h"
#include "runtime/srcloc.h"

namespace kiln {

namespace {

struct SyntaxRules {
  ObjHeader h;  // T_OPAQUE, flags = kRulesFlag
  Value name;
  Value ellipsis;
  Value literals;  // list of symbols
  Value rules;     // list of (pattern template binders inner-ids binders-in-a-body)
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
  explicit Expander(SyntaxRules *r, const MacroUseSite *site = nullptr) : r_(r), site_(site) {}

  // An alias of the ellipsis (from a macro-defining macro) is the ellipsis.
  bool is_ellipsis(Value v) const { return is_symbol(v) && unaliased(v) == r_->ellipsis; }
  static bool is_underscore(Value v) { return is_symbol(v) && unaliased(v) == intern("_"); }
  bool is_literal(Value v) const {
    for (Value p = r_->literals; is_pair(p); p = cdr(p))
      if (car(p) == v) return true;
    return false;
  }

  // Pattern variables of `pat` (excluding the keyword position handled by caller).
  void pattern_vars(Value pat, Value *out) {
    check_stack();
    if (is_symbol(pat)) {
      if (!is_ellipsis(pat) && !is_literal(pat) && !is_underscore(pat)) *out = cons(pat, *out);
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
      if (is_literal(pat)) {
        if (!is_symbol(form)) return false;
        return site_ && site_->matches_literal ? site_->matches_literal(form, pat) : form == pat;
      }
      if (is_underscore(pat)) return true;
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
    as<Symbol>(a)->alias_scope = site_ ? site_->def_scope : nullptr;
    as<Symbol>(a)->alias_env = site_ ? site_->def_env : nullptr;
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
      for (Value p = inner_ids_; is_pair(p); p = cdr(p))
        if (car(p) == t) return alias(t);
      if (!quoted && quasi_ == 0)
        for (Value p = binders; is_pair(p); p = cdr(p))
          if (car(p) == t) return rename(t);
      if (!quoted && quasi_ == 0 && site_ && site_->keeps_meaning && !site_->keeps_meaning(t))
        return alias(t);
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
      if ((car(t) == intern("unquote") || car(t) == intern("unquote-splicing")) && quasi_ > 0 && !quoted) {
        // Back to code one level out: its identifiers get hygiene again.
        quasi_--;
        Value r = cons(car(t), expand(cdr(t), b, binders, quoted));
        quasi_++;
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

  // (... TEMPLATE): TEMPLATE with its ellipses taken literally. The rules
  // object is shared, so its ellipsis comes back even if expansion fails.
  Value expand_escaped(Value t, Value b) {
    struct Restore {
      SyntaxRules *r;
      Value saved;
      ~Restore() { r->ellipsis = saved; }
    } restore{r_, r_->ellipsis};
    r_->ellipsis = NOVALUE;
    return expand(t, b, NIL, false);
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
  const MacroUseSite *site_;
  Value renames_ = NIL;

 public:
  // Identifiers of the rule's template that are literals or pattern variables
  // of a syntax-rules inside it (see collect_inner_ids): always aliased.
  Value inner_ids_ = NIL;

 private:
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

// Identifiers the template binds itself (see the file comment). A `define`
// at the template's own level (or in a `begin` there) goes to top_defs
// instead: it is a binder only where the macro is used inside a body, since a
// top-level definition keeps the name as written.
void collect_binders(Value t, Value patvars, Value *out, Value *top_defs, bool top) {
  check_stack();
  if (!is_pair(t)) return;
  Value head = car(t);
  if (head == intern("quote")) return;
  if ((head == intern("define") || head == intern("define-syntax")) && is_pair(cdr(t))) {
    Value target = car(cdr(t));
    while (is_pair(target)) target = car(target);  // (define (f . args) ...)
    add_binder(target, patvars, top ? top_defs : out);
  }
  if (head == intern("define-values") && is_pair(cdr(t))) {
    Value p = car(cdr(t));
    for (; is_pair(p); p = cdr(p)) add_binder(car(p), patvars, top ? top_defs : out);
    add_binder(p, patvars, top ? top_defs : out);  // a rest name
  }
  if (head == intern("begin") && top) {
    for (Value p = cdr(t); is_pair(p); p = cdr(p)) collect_binders(car(p), patvars, out, top_defs, true);
    return;
  }
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
  for (Value p = t; is_pair(p); p = cdr(p)) collect_binders(car(p), patvars, out, top_defs, false);
}

// A syntax-rules form inside a template (a macro-defining macro): the
// identifiers the template gives it as literals or pattern variables. Each
// expansion makes them aliases, so they are its own: a pattern variable the
// template introduces never matches the user's identifier of the same name
// inside the inner template, and a literal it introduces is not the user's
// identifier either, while still matching by binding.
void collect_inner_ids(Value t, Value patvars, Value *out) {
  check_stack();
  if (!is_pair(t)) return;
  if (names_syntax_rules(car(t)) && is_pair(cdr(t))) {
    Value rest = cdr(t);
    Value inner_ellipsis = intern("...");
    if (is_symbol(car(rest))) {
      inner_ellipsis = car(rest);
      rest = cdr(rest);
    }
    std::function<void(Value)> add = [&](Value x) {
      check_stack();
      if (is_symbol(x)) {
        if (x != inner_ellipsis && unaliased(x) != intern("...") && unaliased(x) != intern("_"))
          add_binder(x, patvars, out);
      } else if (is_pair(x)) {
        add(car(x));
        add(cdr(x));
      } else if (is_vector(x)) {
        Vector *v = as<Vector>(x);
        for (int64_t i = 0; i < v->len; i++) add(v->items[i]);
      }
    };
    if (is_pair(rest)) {
      add(car(rest));  // the literals
      for (Value r = cdr(rest); is_pair(r); r = cdr(r))
        if (is_pair(car(r)) && is_pair(car(car(r)))) add(cdr(car(car(r))));  // a pattern, less its keyword
    }
  }
  for (Value p = t; is_pair(p); p = cdr(p)) collect_inner_ids(car(p), patvars, out);
}

}  // namespace

bool is_syntax_rules(Value v) { return has_type(v, T_OPAQUE) && hdr(v)->flags == kRulesFlag; }

Value make_syntax_rules(Value spec, Value form) {
  // (syntax-rules (literal...) (pattern template)...) or (syntax-rules ellipsis (literal...) ...)
  Value rest = cdr(spec);
  Value ellipsis = intern("...");
  if (is_pair(rest) && is_symbol(car(rest))) {
    ellipsis = unaliased(car(rest));
    rest = cdr(rest);
  }
  if (!is_pair(rest)) throw_error_at(loc_of(form), "syntax-rules: missing literals list");
  SyntaxRules *r = alloc_obj<SyntaxRules>(T_OPAQUE);
  r->h.flags = kRulesFlag;
  r->ellipsis = ellipsis;
  r->literals = car(rest);
  // A literal has priority over the ellipsis (R7RS 4.3.2): then there is none.
  for (Value p = r->literals; is_pair(p); p = cdr(p))
    if (is_symbol(car(p)) && unaliased(car(p)) == ellipsis) r->ellipsis = NOVALUE;
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
    Value binders = NIL, top_defs = NIL;
    collect_binders(tmpl, patvars, &binders, &top_defs, true);
    Value body_binders = binders;
    for (Value d = top_defs; is_pair(d); d = cdr(d)) body_binders = cons(car(d), body_binders);
    Value inner = NIL;
    collect_inner_ids(tmpl, patvars, &inner);
    rules = cons(cons(pat, cons(tmpl, cons(binders, cons(inner, cons(body_binders, NIL))))), rules);
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

Value expand_syntax_rules(Value rules_v, Value form, const MacroUseSite &site) {
  SyntaxRules *r = as<SyntaxRules>(rules_v);
  for (Value p = r->rules; is_pair(p); p = cdr(p)) {
    Value rule = car(p);
    Value pat = car(rule), tmpl = car(cdr(rule)), binders = car(cdr(cdr(rule)));
    if (site.in_body) binders = car(cdr(cdr(cdr(cdr(rule)))));
    Expander ex(r, &site);
    ex.inner_ids_ = car(cdr(cdr(cdr(rule))));
    Value b = NIL;
    if (ex.match(cdr(pat), cdr(form), &b)) return ex.expand(tmpl, b, binders, false);
  }
  throw_error_at(loc_of(form), fmt::format("{}: no syntax-rules pattern matches {}", symbol_name(r->name),
                                           error_value_string(form)));
}

}  // namespace kiln
