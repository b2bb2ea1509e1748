
// Generated from IpuLang.g4 by ANTLR 4.7.2


#include "IpuLangVisitor.h"


using namespace iputrain::grammar;

