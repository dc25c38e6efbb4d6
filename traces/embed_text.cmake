# cmake -DIN=FILE -DOUT=FILE.cpp -DNAME=kName -P embed_text.cmake
# Writes a C++ file defining `const char* const wtsim::traces::NAME` holding IN's text as a raw
# string literal (the report's page template, compiled in so that wtsim needs no data files).
file(READ "${IN}" content)
set(delimiter "wtsim_embed")
string(FIND "${content}" ")${delimiter}\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${IN} contains the raw-string delimiter )${delimiter}\"")
endif()
file(WRITE "${OUT}.tmp" "// Generated from ${IN} by embed_text.cmake; do not edit.\n"
                        "namespace wtsim::traces {\n"
                        "extern const char* const ${NAME};\n"
                        "const char* const ${NAME} = R\"${delimiter}(${content})${delimiter}\";\n"
                        "}  // namespace wtsim::traces\n")
file(RENAME "${OUT}.tmp" "${OUT}")
