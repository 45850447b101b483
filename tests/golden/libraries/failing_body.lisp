;; An error in a library's body is reported where it happened, in the .sld file.
(import (scheme base) (broken failing))
