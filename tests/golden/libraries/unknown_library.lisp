;; An uncaught import error is reported at the import form.
(import (scheme base))
(import (only (scheme write) display)
        (no such library))
