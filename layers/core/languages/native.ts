/** What the gcc-built languages (C and C++) share in core: the lines that begin their code. */

/** Lines that begin C or C++ code (an answer may mix the two). */
export const NATIVE_CODE_START = /^\s*(#\s*include|#\s*define|using\s|typedef\s|struct\s|int\s|long\s|void\s|char\s|double\s|float\s|unsigned\s|const\s|static\s|template\s*<|namespace\s|return\b|if\s*\(|for\s*\(|while\s*\()/;
