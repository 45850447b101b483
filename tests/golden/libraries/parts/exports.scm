;; Library declarations, spliced into (text utils) by include-library-declarations.
(export shout whisper loud-name)
(import (scheme base) (scheme char))
