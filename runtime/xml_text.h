// xml_text.h — text made safe for XML and HTML documents (JUnit reports, SVG
// charts, notebook HTML).
//
// Invariant: what these return is valid UTF-8 made only of characters XML 1.0
// allows, whatever bytes they are given: anything else (invalid UTF-8, control
// characters other than tab and newline, U+FFFE/U+FFFF) is written `\xHH;` per
// byte, so a report never becomes unreadable because a test printed garbage.
#pragma once
#include <string>
#include <string_view>

namespace kiln {

// Valid UTF-8 and control characters other than tab and newline become `\xHH;`.
std::string printable_text(std::string_view s);
// printable_text, with & < > " ' as entities: fit for element text and attributes.
std::string xml_escape(std::string_view s);

}  // namespace kiln
