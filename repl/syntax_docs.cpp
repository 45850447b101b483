#include "syntax_docs.h"

namespace kiln {

static const SyntaxDoc kSyntaxDocs[] = {
    // Special forms.
    {"quote", "(quote DATUM) or 'DATUM", "DATUM itself, not evaluated."},
    {"quasiquote", "(quasiquote TEMPLATE) or `TEMPLATE",
     "TEMPLATE as data, with ,E parts replaced by E's value and ,@E parts spliced in."},
    {"unquote", ",EXPR inside a quasiquote", "Inserts EXPR's value into the enclosing quasiquote template."},
    {"unquote-splicing", ",@EXPR inside a quasiquote",
     "Splices the elements of the list EXPR into the enclosing quasiquote template."},
    {"lambda", "(lambda FORMALS BODY...)",
     "A procedure taking FORMALS ((a b), (a . rest) or args) that evaluates BODY."},
    {"named-lambda", "(named-lambda (NAME . FORMALS) BODY...)",
     "A lambda that prints and describes itself as NAME."},
    {"define", "(define NAME EXPR) or (define (NAME . FORMALS) BODY...)",
     "Binds NAME globally at top level, or locally at the start of a body."},
    {"set!", "(set! NAME EXPR)", "Assigns EXPR's value to the existing variable NAME."},
    {"if", "(if TEST THEN [ELSE])", "Evaluates THEN when TEST is not #f, ELSE otherwise."},
    {"begin", "(begin FORM...)", "Evaluates the FORMs in order; the value is the last one's."},
    {"let", "(let ((NAME INIT)...) BODY...) or (let LOOP ((NAME INIT)...) BODY...)",
     "Local variables for BODY; the named form also binds LOOP to a procedure that restarts it."},
    {"let*", "(let* ((NAME INIT)...) BODY...)", "Like let, but each INIT sees the names bound before it."},
    {"letrec", "(letrec ((NAME INIT)...) BODY...)",
     "Like let, but every INIT sees every NAME (for mutual recursion)."},
    {"letrec*", "(letrec* ((NAME INIT)...) BODY...)", "Like letrec, with the INITs evaluated left to right."},
    {"cond", "(cond (TEST BODY...)... [(else BODY...)])",
     "Evaluates the BODY of the first clause whose TEST is true; (TEST => PROC) passes the value."},
    {"case", "(case KEY ((DATUM...) BODY...)... [(else BODY...)])",
     "Evaluates the BODY of the first clause listing a DATUM eqv? to KEY's value."},
    {"and", "(and EXPR...)",
     "The first #f among the EXPRs, else the last value (#t when none); stops at #f."},
    {"or", "(or EXPR...)", "The first true value among the EXPRs (#f when none); stops at it."},
    {"when", "(when TEST BODY...)", "Evaluates BODY when TEST is true."},
    {"unless", "(unless TEST BODY...)", "Evaluates BODY when TEST is #f."},
    {"define-syntax", "(define-syntax NAME TRANSFORMER)",
     "Defines the macro NAME; TRANSFORMER is (syntax-rules ...) or a procedure of the whole form."},
    {"let-syntax", "(let-syntax ((NAME TRANSFORMER)...) BODY...)", "Macros visible only in BODY."},
    {"letrec-syntax", "(letrec-syntax ((NAME TRANSFORMER)...) BODY...)",
     "Like let-syntax, but the macros also see each other."},
    {"defmacro", "(defmacro NAME (PARAM... [. REST]) BODY...)",
     "An unhygienic macro: BODY computes the expansion from the unevaluated arguments."},
    {"define-macro", "(define-macro (NAME . PARAMS) BODY...)", "defmacro with the name inside the head."},
    {"define-record-type", "(define-record-type NAME (CTOR FIELD...) PRED (FIELD ACCESSOR [MODIFIER])...)",
     "Defines a record type with its constructor, predicate, accessors and modifiers."},
    {"guard", "(guard (VAR CLAUSE...) BODY...)",
     "Evaluates BODY; a raised object is bound to VAR and tried against the cond-style CLAUSEs."},
    {"include", "(include \"FILE\"...)", "Splices the forms of the FILEs in its place."},
    {"import", "(import SPEC...)", "Accepted and ignored: every builtin is always visible."},
    // Macros of stdlib/prelude.lisp.
    {"do", "(do ((VAR INIT [STEP])...) (TEST RESULT...) BODY...)",
     "Loops: runs BODY and steps the VARs until TEST is true, then evaluates RESULT."},
    {"delay", "(delay EXPR)", "A promise that evaluates EXPR once, when forced."},
    {"delay-force", "(delay-force EXPR)",
     "A promise that forces the promise EXPR returns; long chains run in constant space."},
    {"make-lazy-promise", "(make-lazy-promise EXPR)", "delay-force under another name."},
    {"cons-stream", "(cons-stream A B)", "(cons A (delay B)): a stream whose tail is computed when forced."},
    {"case-lambda", "(case-lambda (FORMALS BODY...)...)",
     "A procedure that runs the first clause accepting its number of arguments."},
    {"parameterize", "(parameterize ((PARAM VALUE)...) BODY...)",
     "Gives parameter objects new values for the extent of BODY."},
    {"receive", "(receive FORMALS EXPR BODY...)", "Binds the values of EXPR to FORMALS for BODY."},
    {"let-values", "(let-values ((FORMALS EXPR)...) BODY...)",
     "Binds each EXPR's values to its FORMALS, all EXPRs evaluated outside the new bindings."},
    {"let*-values", "(let*-values ((FORMALS EXPR)...) BODY...)",
     "Like let-values, but each EXPR sees the bindings before it."},
    {"define-values", "(define-values FORMALS EXPR)", "Defines each name of FORMALS from EXPR's values."},
    {"assert", "(assert EXPR)", "Raises \"assertion failed: EXPR\" when EXPR is #f."},
    {"time", "(time EXPR)", "Evaluates EXPR, prints ;; time: N ms on stderr and returns its value."},
    {"try-catch", "(try-catch BODY (VAR) HANDLER...)",
     "Evaluates BODY; on a raised object binds it to VAR and evaluates HANDLER."},
    {"cond-expand", "(cond-expand (REQUIREMENT BODY...)... [(else BODY...)])",
     "The BODY of the first clause whose feature REQUIREMENT holds."},
    {"use-modules", "(use-modules SPEC...)", "Guile's import; accepted and ignored: every builtin is always visible."},
};

const SyntaxDoc *find_syntax_doc(std::string_view name) {
  for (const SyntaxDoc &d : kSyntaxDocs)
    if (name == d.name) return &d;
  return nullptr;
}

}  // namespace kiln
