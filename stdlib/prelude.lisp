;;; prelude.lisp — procedures of the standard library written in Kiln itself.
;;; Embedded into the kiln binary at build time (stdlib/embed.cmake).
