# Turns stdlib/prelude.lisp into a C++ source holding it as a string.
file(READ ${IN} CONTENT)
set(DELIM "KILN_PRELUDE_")
file(WRITE ${OUT} "namespace kiln { extern const char *const kPreludeSource; const char *const kPreludeSource = R\"${DELIM}(${CONTENT})${DELIM}\"; }\n")
