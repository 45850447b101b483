;; An unknown # syntax.
(display #q)
