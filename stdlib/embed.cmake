# Turns a Lisp source (IN) into a C++ source (OUT) defining the string NAME.
file(READ ${IN} CONTENT)
set(DELIM "KILN_PRELUDE_")
file(WRITE ${OUT} "namespace kiln { extern const char *const ${NAME}; const char *const ${NAME} = R\"${DELIM}(${CONTENT})${DELIM}\"; }\n")
