
// Generated from IpuLang.g4 by ANTLR 4.7.2


#include "IpuLangVisitor.h"

#include "IpuLangParser.h"


using namespace antlrcpp;
using namespace iputrain::grammar;
using namespace antlr4;

IpuLangParser::IpuLangParser(TokenStream *input) : Parser(input) {
  _interpreter = new atn::ParserATNSimulator(this, _atn, _decisionToDFA, _sharedContextCache);
}

IpuLangParser::~IpuLangParser() {
  delete _interpreter;
}

std::string IpuLangParser::getGrammarFileName() const {
  return "IpuLang.g4";
}

const std::vector<std::string>& IpuLangParser::getRuleNames() const {
  return _ruleNames;
}

dfa::Vocabulary& IpuLangParser::getVocabulary() const {
  return _vocabulary;
}


//----------------- FileContext ------------------------------------------------------------------

IpuLangParser::FileContext::FileContext(ParserRuleContext *parent, size_t invokingState)
  : ParserRuleContext(parent, invokingState) {
}

tree::TerminalNode* IpuLangParser::FileContext::EOF() {
  return getToken(IpuLangParser::EOF, 0);
}

std::vector<IpuLangParser::TopItemContext *> IpuLangParser::FileContext::topItem() {
  return getRuleContexts<IpuLangParser::TopItemContext>();
}

IpuLangParser::TopItemContext* IpuLangParser::FileContext::topItem(size_t i) {
  return getRuleContext<IpuLangParser::TopItemContext>(i);
}


size_t IpuLangParser::FileContext::getRuleIndex() const {
  return IpuLangParser::RuleFile;
}

antlrcpp::Any IpuLangParser::FileContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitFile(this);
  else
    return visitor->visitChildren(this);
}

IpuLangParser::FileContext* IpuLangParser::file() {
  FileContext *_localctx = _tracker.createInstance<FileContext>(_ctx, getState());
  enterRule(_localctx, 0, IpuLangParser::RuleFile);
  size_t _la = 0;

  auto onExit = finally([=] {
    exitRule();
  });
  try {
    enterOuterAlt(_localctx, 1);
    setState(48);
    _errHandler->sync(this);
    _la = _input->LA(1);
    while ((((_la & ~ 0x3fULL) == 0) &&
      ((1ULL << _la) & ((1ULL << IpuLangParser::T__1)
      | (1ULL << IpuLangParser::T__2)
      | (1ULL << IpuLangParser::T__4)
      | (1ULL << IpuLangParser::T__7)
      | (1ULL << IpuLangParser::T__9))) != 0)) {
      setState(42);
      topItem();
      setState(44);
      _errHandler->sync(this);

      _la = _input->LA(1);
      if (_la == IpuLangParser::T__0) {
        setState(43);
        match(IpuLangParser::T__0);
      }
      setState(50);
      _errHandler->sync(this);
      _la = _input->LA(1);
    }
    setState(51);
    match(IpuLangParser::EOF);
   
  }
  catch (RecognitionException &e) {
    _errHandler->reportError(this, e);
    _localctx->exception = std::current_exception();
    _errHandler->recover(this, _localctx->exception);
  }

  return _localctx;
}

//----------------- TopItemContext ------------------------------------------------------------------

IpuLangParser::TopItemContext::TopItemContext(ParserRuleContext *parent, size_t invokingState)
  : ParserRuleContext(parent, invokingState) {
}

IpuLangParser::ImportDeclContext* IpuLangParser::TopItemContext::importDecl() {
  return getRuleContext<IpuLangParser::ImportDeclContext>(0);
}

IpuLangParser::FromImportDeclContext* IpuLangParser::TopItemContext::fromImportDecl() {
  return getRuleContext<IpuLangParser::FromImportDeclContext>(0);
}

IpuLangParser::ModelDeclContext* IpuLangParser::TopItemContext::modelDecl() {
  return getRuleContext<IpuLangParser::ModelDeclContext>(0);
}

IpuLangParser::DefDeclContext* IpuLangParser::TopItemContext::defDecl() {
  return getRuleContext<IpuLangParser::DefDeclContext>(0);
}

IpuLangParser::LayerDeclContext* IpuLangParser::TopItemContext::layerDecl() {
  return getRuleContext<IpuLangParser::LayerDeclContext>(0);
}


size_t IpuLangParser::TopItemContext::getRuleIndex() const {
  return IpuLangParser::RuleTopItem;
}

antlrcpp::Any IpuLangParser::TopItemContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitTopItem(this);
  else
    return visitor->visitChildren(this);
}

IpuLangParser::TopItemContext* IpuLangParser::topItem() {
  TopItemContext *_localctx = _tracker.createInstance<TopItemContext>(_ctx, getState());
  enterRule(_localctx, 2, IpuLangParser::RuleTopItem);

  auto onExit = finally([=] {
    exitRule();
  });
  try {
    setState(58);
    _errHandler->sync(this);
    switch (_input->LA(1)) {
      case IpuLangParser::T__1: {
        enterOuterAlt(_localctx, 1);
        setState(53);
        importDecl();
        break;
      }

      case IpuLangParser::T__2: {
        enterOuterAlt(_localctx, 2);
        setState(54);
        fromImportDecl();
        break;
      }

      case IpuLangParser::T__4: {
        enterOuterAlt(_localctx, 3);
        setState(55);
        modelDecl();
        break;
      }

      case IpuLangParser::T__7: {
        enterOuterAlt(_localctx, 4);
        setState(56);
        defDecl();
        break;
      }

      case IpuLangParser::T__9: {
        enterOuterAlt(_localctx, 5);
        setState(57);
        layerDecl();
        break;
      }

    default:
      throw NoViableAltException(this);
    }
   
  }
  catch (RecognitionException &e) {
    _errHandler->reportError(this, e);
    _localctx->exception = std::current_exception();
    _errHandler->recover(this, _localctx->exception);
  }

  return _localctx;
}

//----------------- ImportDeclContext ------------------------------------------------------------------

IpuLangParser::ImportDeclContext::ImportDeclContext(ParserRuleContext *parent, size_t invokingState)
  : ParserRuleContext(parent, invokingState) {
}

tree::TerminalNode* IpuLangParser::ImportDeclContext::NAME() {
  return getToken(IpuLangParser::NAME, 0);
}


size_t IpuLangParser::ImportDeclContext::getRuleIndex() const {
  return IpuLangParser::RuleImportDecl;
}

antlrcpp::Any IpuLangParser::ImportDeclContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitImportDecl(this);
  else
    return visitor->visitChildren(this);
}

IpuLangParser::ImportDeclContext* IpuLangParser::importDecl() {
  ImportDeclContext *_localctx = _tracker.createInstance<ImportDeclContext>(_ctx, getState());
  enterRule(_localctx, 4, IpuLangParser::RuleImportDecl);

  auto onExit = finally([=] {
    exitRule();
  });
  try {
    enterOuterAlt(_localctx, 1);
    setState(60);
    match(IpuLangParser::T__1);
    setState(61);
    match(IpuLangParser::NAME);
   
  }
  catch (RecognitionException &e) {
    _errHandler->reportError(this, e);
    _localctx->exception = std::current_exception();
    _errHandler->recover(this, _localctx->exception);
  }

  return _localctx;
}

//----------------- FromImportDeclContext ------------------------------------------------------------------

IpuLangParser::FromImportDeclContext::FromImportDeclContext(ParserRuleContext *parent, size_t invokingState)
  : ParserRuleContext(parent, invokingState) {
}

std::vector<tree::TerminalNode *> IpuLangParser::FromImportDeclContext::NAME() {
  return getTokens(IpuLangParser::NAME);
}

tree::TerminalNode* IpuLangParser::FromImportDeclContext::NAME(size_t i) {
  return getToken(IpuLangParser::NAME, i);
}


size_t IpuLangParser::FromImportDeclContext::getRuleIndex() const {
  return IpuLangParser::RuleFromImportDecl;
}

antlrcpp::Any IpuLangParser::FromImportDeclContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitFromImportDecl(this);
  else
    return visitor->visitChildren(this);
}

IpuLangParser::FromImportDeclContext* IpuLangParser::fromImportDecl() {
  FromImportDeclContext *_localctx = _tracker.createInstance<FromImportDeclContext>(_ctx, getState());
  enterRule(_localctx, 6, IpuLangParser::RuleFromImportDecl);
  size_t _la = 0;

  auto onExit = finally([=] {
    exitRule();
  });
  try {
    enterOuterAlt(_localctx, 1);
    setState(63);
    match(IpuLangParser::T__2);
    setState(64);
    match(IpuLangParser::NAME);
    setState(65);
    match(IpuLangParser::T__1);
    setState(66);
    match(IpuLangParser::NAME);
    setState(71);
    _errHandler->sync(this);
    _la = _input->LA(1);
    while (_la == IpuLangParser::T__3) {
      setState(67);
      match(IpuLangParser::T__3);
      setState(68);
      match(IpuLangParser::NAME);
      setState(73);
      _errHandler->sync(this);
      _la = _input->LA(1);
    }
   
  }
  catch (RecognitionException &e) {
    _errHandler->reportError(this, e);
    _localctx->exception = std::current_exception();
    _errHandler->recover(this, _localctx->exception);
  }

  return _localctx;
}

//----------------- ModelDeclContext ------------------------------------------------------------------

IpuLangParser::ModelDeclContext::ModelDeclContext(ParserRuleContext *parent, size_t invokingState)
  : ParserRuleContext(parent, invokingState) {
}

tree::TerminalNode* IpuLangParser::ModelDeclContext::NAME() {
  return getToken(IpuLangParser::NAME, 0);
}

IpuLangParser::BlockContext* IpuLangParser::ModelDeclContext::block() {
  return getRuleContext<IpuLangParser::BlockContext>(0);
}

IpuLangParser::ParamListContext* IpuLangParser::ModelDeclContext::paramList() {
  return getRuleContext<IpuLangParser::ParamListContext>(0);
}


size_t IpuLangParser::ModelDeclContext::getRuleIndex() const {
  return IpuLangParser::RuleModelDecl;
}

antlrcpp::Any IpuLangParser::ModelDeclContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitModelDecl(this);
  else
    return visitor->visitChildren(this);
}

IpuLangParser::ModelDeclContext* IpuLangParser::modelDecl() {
  ModelDeclContext *_localctx = _tracker.createInstance<ModelDeclContext>(_ctx, getState());
  enterRule(_localctx, 8, IpuLangParser::RuleModelDecl);
  size_t _la = 0;

  auto onExit = finally([=] {
    exitRule();
  });
  try {
    enterOuterAlt(_localctx, 1);
    setState(74);
    match(IpuLangParser::T__4);
    setState(75);
    match(IpuLangParser::NAME);
    setState(76);
    match(IpuLangParser::T__5);
    setState(78);
    _errHandler->sync(this);

    _la = _input->LA(1);
    if (_la == IpuLangParser::NAME) {
      setState(77);
      paramList();
    }
    setState(80);
    match(IpuLangParser::T__6);
    setState(81);
    block();
   
  }
  catch (RecognitionException &e) {
    _errHandler->reportError(this, e);
    _localctx->exception = std::current_exception();
    _errHandler->recover(this, _localctx->exception);
  }

  return _localctx;
}

//----------------- DefDeclContext ------------------------------------------------------------------

IpuLangParser::DefDeclContext::DefDeclContext(ParserRuleContext *parent, size_t invokingState)
  : ParserRuleContext(parent, invokingState) {
}

tree::TerminalNode* IpuLangParser::DefDeclContext::NAME() {
  return getToken(IpuLangParser::NAME, 0);
}

IpuLangParser::ExprContext* IpuLangParser::DefDeclContext::expr() {
  return getRuleContext<IpuLangParser::ExprContext>(0);
}

IpuLangParser::BlockContext* IpuLangParser::DefDeclContext::block() {
  return getRuleContext<IpuLangParser::BlockContext>(0);
}

IpuLangParser::ParamListContext* IpuLangParser::DefDeclContext::paramList() {
  return getRuleContext<IpuLangParser::ParamListContext>(0);
}


size_t IpuLangParser::DefDeclContext::getRuleIndex() const {
  return IpuLangParser::RuleDefDecl;
}

antlrcpp::Any IpuLangParser::DefDeclContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitDefDecl(this);
  else
    return visitor->visitChildren(this);
}

IpuLangParser::DefDeclContext* IpuLangParser::defDecl() {
  DefDeclContext *_localctx = _tracker.createInstance<DefDeclContext>(_ctx, getState());
  enterRule(_localctx, 10, IpuLangParser::RuleDefDecl);
  size_t _la = 0;

  auto onExit = finally([=] {
    exitRule();
  });
  try {
    enterOuterAlt(_localctx, 1);
    setState(83);
    match(IpuLangParser::T__7);
    setState(84);
    match(IpuLangParser::NAME);
    setState(85);
    match(IpuLangParser::T__5);
    setState(87);
    _errHandler->sync(this);

    _la = _input->LA(1);
    if (_la == IpuLangParser::NAME) {
      setState(86);
      paramList();
    }
    setState(89);
    match(IpuLangParser::T__6);
    setState(93);
    _errHandler->sync(this);
    switch (_input->LA(1)) {
      case IpuLangParser::T__8: {
        setState(90);
        match(IpuLangParser::T__8);
        setState(91);
        expr(0);
        break;
      }

      case IpuLangParser::T__14: {
        setState(92);
        block();
        break;
      }

    default:
      throw NoViableAltException(this);
    }
   
  }
  catch (RecognitionException &e) {
    _errHandler->reportError(this, e);
    _localctx->exception = std::current_exception();
    _errHandler->recover(this, _localctx->exception);
  }

  return _localctx;
}

//----------------- LayerDeclContext ------------------------------------------------------------------

IpuLangParser::LayerDeclContext::LayerDeclContext(ParserRuleContext *parent, size_t invokingState)
  : ParserRuleContext(parent, invokingState) {
}

tree::TerminalNode* IpuLangParser::LayerDeclContext::NAME() {
  return getToken(IpuLangParser::NAME, 0);
}

IpuLangParser::BlockContext* IpuLangParser::LayerDeclContext::block() {
  return getRuleContext<IpuLangParser::BlockContext>(0);
}

IpuLangParser::ParamListContext* IpuLangParser::LayerDeclContext::paramList() {
  return getRuleContext<IpuLangParser::ParamListContext>(0);
}


size_t IpuLangParser::LayerDeclContext::getRuleIndex() const {
  return IpuLangParser::RuleLayerDecl;
}

antlrcpp::Any IpuLangParser::LayerDeclContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitLayerDecl(this);
  else
    return visitor->visitChildren(this);
}

IpuLangParser::LayerDeclContext* IpuLangParser::layerDecl() {
  LayerDeclContext *_localctx = _tracker.createInstance<LayerDeclContext>(_ctx, getState());
  enterRule(_localctx, 12, IpuLangParser::RuleLayerDecl);
  size_t _la = 0;

  auto onExit = finally([=] {
    exitRule();
  });
  try {
    enterOuterAlt(_localctx, 1);
    setState(95);
    match(IpuLangParser::T__9);
    setState(96);
    match(IpuLangParser::NAME);
    setState(97);
    match(IpuLangParser::T__5);
    setState(99);
    _errHandler->sync(this);

    _la = _input->LA(1);
    if (_la == IpuLangParser::NAME) {
      setState(98);
      paramList();
    }
    setState(101);
    match(IpuLangParser::T__6);
    setState(102);
    block();
   
  }
  catch (RecognitionException &e) {
    _errHandler->reportError(this, e);
    _localctx->exception = std::current_exception();
    _errHandler->recover(this, _localctx->exception);
  }

  return _localctx;
}

//----------------- ParamListContext ------------------------------------------------------------------

IpuLangParser::ParamListContext::ParamListContext(ParserRuleContext *parent, size_t invokingState)
  : ParserRuleContext(parent, invokingState) {
}

std::vector<IpuLangParser::ParamDeclContext *> IpuLangParser::ParamListContext::paramDecl() {
  return getRuleContexts<IpuLangParser::ParamDeclContext>();
}

IpuLangParser::ParamDeclContext* IpuLangParser::ParamListContext::paramDecl(size_t i) {
  return getRuleContext<IpuLangParser::ParamDeclContext>(i);
}


size_t IpuLangParser::ParamListContext::getRuleIndex() const {
  return IpuLangParser::RuleParamList;
}

antlrcpp::Any IpuLangParser::ParamListContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitParamList(this);
  else
    return visitor->visitChildren(this);
}

IpuLangParser::ParamListContext* IpuLangParser::paramList() {
  ParamListContext *_localctx = _tracker.createInstance<ParamListContext>(_ctx, getState());
  enterRule(_localctx, 14, IpuLangParser::RuleParamList);
  size_t _la = 0;

  auto onExit = finally([=] {
    exitRule();
  });
  try {
    size_t alt;
    enterOuterAlt(_localctx, 1);
    setState(104);
    paramDecl();
    setState(109);
    _errHandler->sync(this);
    alt = getInterpreter<atn::ParserATNSimulator>()->adaptivePredict(_input, 8, _ctx);
    while (alt != 2 && alt != atn::ATN::INVALID_ALT_NUMBER) {
      if (alt == 1) {
        setState(105);
        match(IpuLangParser::T__3);
        setState(106);
        paramDecl(); 
      }
      setState(111);
      _errHandler->sync(this);
      alt = getInterpreter<atn::ParserATNSimulator>()->adaptivePredict(_input, 8, _ctx);
    }
    setState(113);
    _errHandler->sync(this);

    _la = _input->LA(1);
    if (_la == IpuLangParser::T__3) {
      setState(112);
      match(IpuLangParser::T__3);
    }
   
  }
  catch (RecognitionException &e) {
    _errHandler->reportError(this, e);
    _localctx->exception = std::current_exception();
    _errHandler->recover(this, _localctx->exception);
  }

  return _localctx;
}

//----------------- ParamDeclContext ------------------------------------------------------------------

IpuLangParser::ParamDeclContext::ParamDeclContext(ParserRuleContext *parent, size_t invokingState)
  : ParserRuleContext(parent, invokingState) {
}

tree::TerminalNode* IpuLangParser::ParamDeclContext::NAME() {
  return getToken(IpuLangParser::NAME, 0);
}

IpuLangParser::TypeExprContext* IpuLangParser::ParamDeclContext::typeExpr() {
  return getRuleContext<IpuLangParser::TypeExprContext>(0);
}

IpuLangParser::ExprContext* IpuLangParser::ParamDeclContext::expr() {
  return getRuleContext<IpuLangParser::ExprContext>(0);
}


size_t IpuLangParser::ParamDeclContext::getRuleIndex() const {
  return IpuLangParser::RuleParamDecl;
}

antlrcpp::Any IpuLangParser::ParamDeclContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitParamDecl(this);
  else
    return visitor->visitChildren(this);
}

IpuLangParser::ParamDeclContext* IpuLangParser::paramDecl() {
  ParamDeclContext *_localctx = _tracker.createInstance<ParamDeclContext>(_ctx, getState());
  enterRule(_localctx, 16, IpuLangParser::RuleParamDecl);
  size_t _la = 0;

  auto onExit = finally([=] {
    exitRule();
  });
  try {
    enterOuterAlt(_localctx, 1);
    setState(115);
    match(IpuLangParser::NAME);
    setState(118);
    _errHandler->sync(this);

    _la = _input->LA(1);
    if (_la == IpuLangParser::T__10) {
      setState(116);
      match(IpuLangParser::T__10);
      setState(117);
      typeExpr();
    }
    setState(122);
    _errHandler->sync(this);

    _la = _input->LA(1);
    if (_la == IpuLangParser::T__8) {
      setState(120);
      match(IpuLangParser::T__8);
      setState(121);
      expr(0);
    }
   
  }
  catch (RecognitionException &e) {
    _errHandler->reportError(this, e);
    _localctx->exception = std::current_exception();
    _errHandler->recover(this, _localctx->exception);
  }

  return _localctx;
}

//----------------- TypeExprContext ------------------------------------------------------------------

IpuLangParser::TypeExprContext::TypeExprContext(ParserRuleContext *parent, size_t invokingState)
  : ParserRuleContext(parent, invokingState) {
}

tree::TerminalNode* IpuLangParser::TypeExprContext::NAME() {
  return getToken(IpuLangParser::NAME, 0);
}

std::vector<IpuLangParser::DimContext *> IpuLangParser::TypeExprContext::dim() {
  return getRuleContexts<IpuLangParser::DimContext>();
}

IpuLangParser::DimContext* IpuLangParser::TypeExprContext::dim(size_t i) {
  return getRuleContext<IpuLangParser::DimContext>(i);
}


size_t IpuLangParser::TypeExprContext::getRuleIndex() const {
  return IpuLangParser::RuleTypeExpr;
}

antlrcpp::Any IpuLangParser::TypeExprContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitTypeExpr(this);
  else
    return visitor->visitChildren(this);
}

IpuLangParser::TypeExprContext* IpuLangParser::typeExpr() {
  TypeExprContext *_localctx = _tracker.createInstance<TypeExprContext>(_ctx, getState());
  enterRule(_localctx, 18, IpuLangParser::RuleTypeExpr);
  size_t _la = 0;

  auto onExit = finally([=] {
    exitRule();
  });
  try {
    enterOuterAlt(_localctx, 1);
    setState(124);
    match(IpuLangParser::NAME);
    setState(137);
    _errHandler->sync(this);

    _la = _input->LA(1);
    if (_la == IpuLangParser::T__11) {
      setState(125);
      match(IpuLangParser::T__11);
      setState(134);
      _errHandler->sync(this);

      _la = _input->LA(1);
      if ((((_la & ~ 0x3fULL) == 0) &&
        ((1ULL << _la) & ((1ULL << IpuLangParser::T__5)
        | (1ULL << IpuLangParser::T__11)
        | (1ULL << IpuLangParser::T__13)
        | (1ULL << IpuLangParser::T__36)
        | (1ULL << IpuLangParser::T__37)
        | (1ULL << IpuLangParser::T__49)
        | (1ULL << IpuLangParser::T__52)
        | (1ULL << IpuLangParser::T__53)
        | (1ULL << IpuLangParser::NAME)
        | (1ULL << IpuLangParser::FLOAT)
        | (1ULL << IpuLangParser::INT)
        | (1ULL << IpuLangParser::STRING))) != 0)) {
        setState(126);
        dim();
        setState(131);
        _errHandler->sync(this);
        _la = _input->LA(1);
        while (_la == IpuLangParser::T__3) {
          setState(127);
          match(IpuLangParser::T__3);
          setState(128);
          dim();
          setState(133);
          _errHandler->sync(this);
          _la = _input->LA(1);
        }
      }
      setState(136);
      match(IpuLangParser::T__12);
    }
   
  }
  catch (RecognitionException &e) {
    _errHandler->reportError(this, e);
    _localctx->exception = std::current_exception();
    _errHandler->recover(this, _localctx->exception);
  }

  return _localctx;
}

//----------------- DimContext ------------------------------------------------------------------

IpuLangParser::DimContext::DimContext(ParserRuleContext *parent, size_t invokingState)
  : ParserRuleContext(parent, invokingState) {
}

IpuLangParser::ExprContext* IpuLangParser::DimContext::expr() {
  return getRuleContext<IpuLangParser::ExprContext>(0);
}


size_t IpuLangParser::DimContext::getRuleIndex() const {
  return IpuLangParser::RuleDim;
}

antlrcpp::Any IpuLangParser::DimContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitDim(this);
  else
    return visitor->visitChildren(this);
}

IpuLangParser::DimContext* IpuLangParser::dim() {
  DimContext *_localctx = _tracker.createInstance<DimContext>(_ctx, getState());
  enterRule(_localctx, 20, IpuLangParser::RuleDim);

  auto onExit = finally([=] {
    exitRule();
  });
  try {
    setState(141);
    _errHandler->sync(this);
    switch (_input->LA(1)) {
      case IpuLangParser::T__13: {
        enterOuterAlt(_localctx, 1);
        setState(139);
        match(IpuLangParser::T__13);
        break;
      }

      case IpuLangParser::T__5:
      case IpuLangParser::T__11:
      case IpuLangParser::T__36:
      case IpuLangParser::T__37:
      case IpuLangParser::T__49:
      case IpuLangParser::T__52:
      case IpuLangParser::T__53:
      case IpuLangParser::NAME:
      case IpuLangParser::FLOAT:
      case IpuLangParser::INT:
      case IpuLangParser::STRING: {
        enterOuterAlt(_localctx, 2);
        setState(140);
        expr(0);
        break;
      }

    default:
      throw NoViableAltException(this);
    }
   
  }
  catch (RecognitionException &e) {
    _errHandler->reportError(this, e);
    _localctx->exception = std::current_exception();
    _errHandler->recover(this, _localctx->exception);
  }

  return _localctx;
}

//----------------- BlockContext ------------------------------------------------------------------

IpuLangParser::BlockContext::BlockContext(ParserRuleContext *parent, size_t invokingState)
  : ParserRuleContext(parent, invokingState) {
}

std::vector<IpuLangParser::StmtContext *> IpuLangParser::BlockContext::stmt() {
  return getRuleContexts<IpuLangParser::StmtContext>();
}

IpuLangParser::StmtContext* IpuLangParser::BlockContext::stmt(size_t i) {
  return getRuleContext<IpuLangParser::StmtContext>(i);
}


size_t IpuLangParser::BlockContext::getRuleIndex() const {
  return IpuLangParser::RuleBlock;
}

antlrcpp::Any IpuLangParser::BlockContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitBlock(this);
  else
    return visitor->visitChildren(this);
}

IpuLangParser::BlockContext* IpuLangParser::block() {
  BlockContext *_localctx = _tracker.createInstance<BlockContext>(_ctx, getState());
  enterRule(_localctx, 22, IpuLangParser::RuleBlock);
  size_t _la = 0;

  auto onExit = finally([=] {
    exitRule();
  });
  try {
    enterOuterAlt(_localctx, 1);
    setState(143);
    match(IpuLangParser::T__14);
    setState(150);
    _errHandler->sync(this);
    _la = _input->LA(1);
    while ((((_la & ~ 0x3fULL) == 0) &&
      ((1ULL << _la) & ((1ULL << IpuLangParser::T__16)
      | (1ULL << IpuLangParser::T__17)
      | (1ULL << IpuLangParser::T__18)
      | (1ULL << IpuLangParser::T__19)
      | (1ULL << IpuLangParser::T__20)
      | (1ULL << IpuLangParser::T__23)
      | (1ULL << IpuLangParser::T__26)
      | (1ULL << IpuLangParser::T__27)
      | (1ULL << IpuLangParser::T__28)
      | (1ULL << IpuLangParser::T__29)
      | (1ULL << IpuLangParser::T__31)
      | (1ULL << IpuLangParser::T__32)
      | (1ULL << IpuLangParser::NAME))) != 0)) {
      setState(144);
      stmt();
      setState(146);
      _errHandler->sync(this);

      _la = _input->LA(1);
      if (_la == IpuLangParser::T__0) {
        setState(145);
        match(IpuLangParser::T__0);
      }
      setState(152);
      _errHandler->sync(this);
      _la = _input->LA(1);
    }
    setState(153);
    match(IpuLangParser::T__15);
   
  }
  catch (RecognitionException &e) {
    _errHandler->reportError(this, e);
    _localctx->exception = std::current_exception();
    _errHandler->recover(this, _localctx->exception);
  }

  return _localctx;
}

//----------------- StmtContext ------------------------------------------------------------------

IpuLangParser::StmtContext::StmtContext(ParserRuleContext *parent, size_t invokingState)
  : ParserRuleContext(parent, invokingState) {
}


size_t IpuLangParser::StmtContext::getRuleIndex() const {
  return IpuLangParser::RuleStmt;
}

void IpuLangParser::StmtContext::copyFrom(StmtContext *ctx) {
  ParserRuleContext::copyFrom(ctx);
}

//----------------- ForStmtContext ------------------------------------------------------------------

tree::TerminalNode* IpuLangParser::ForStmtContext::NAME() {
  return getToken(IpuLangParser::NAME, 0);
}

std::vector<IpuLangParser::ExprContext *> IpuLangParser::ForStmtContext::expr() {
  return getRuleContexts<IpuLangParser::ExprContext>();
}

IpuLangParser::ExprContext* IpuLangParser::ForStmtContext::expr(size_t i) {
  return getRuleContext<IpuLangParser::ExprContext>(i);
}

IpuLangParser::BlockContext* IpuLangParser::ForStmtContext::block() {
  return getRuleContext<IpuLangParser::BlockContext>(0);
}

IpuLangParser::ForStmtContext::ForStmtContext(StmtContext *ctx) { copyFrom(ctx); }

antlrcpp::Any IpuLangParser::ForStmtContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitForStmt(this);
  else
    return visitor->visitChildren(this);
}
//----------------- LoopStmtContext ------------------------------------------------------------------

std::vector<IpuLangParser::LoopVarContext *> IpuLangParser::LoopStmtContext::loopVar() {
  return getRuleContexts<IpuLangParser::LoopVarContext>();
}

IpuLangParser::LoopVarContext* IpuLangParser::LoopStmtContext::loopVar(size_t i) {
  return getRuleContext<IpuLangParser::LoopVarContext>(i);
}

tree::TerminalNode* IpuLangParser::LoopStmtContext::NAME() {
  return getToken(IpuLangParser::NAME, 0);
}

std::vector<IpuLangParser::ExprContext *> IpuLangParser::LoopStmtContext::expr() {
  return getRuleContexts<IpuLangParser::ExprContext>();
}

IpuLangParser::ExprContext* IpuLangParser::LoopStmtContext::expr(size_t i) {
  return getRuleContext<IpuLangParser::ExprContext>(i);
}

IpuLangParser::BlockContext* IpuLangParser::LoopStmtContext::block() {
  return getRuleContext<IpuLangParser::BlockContext>(0);
}

IpuLangParser::LoopStmtContext::LoopStmtContext(StmtContext *ctx) { copyFrom(ctx); }

antlrcpp::Any IpuLangParser::LoopStmtContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitLoopStmt(this);
  else
    return visitor->visitChildren(this);
}
//----------------- ParamStmtContext ------------------------------------------------------------------

tree::TerminalNode* IpuLangParser::ParamStmtContext::NAME() {
  return getToken(IpuLangParser::NAME, 0);
}

IpuLangParser::TypeExprContext* IpuLangParser::ParamStmtContext::typeExpr() {
  return getRuleContext<IpuLangParser::TypeExprContext>(0);
}

IpuLangParser::ExprContext* IpuLangParser::ParamStmtContext::expr() {
  return getRuleContext<IpuLangParser::ExprContext>(0);
}

std::vector<IpuLangParser::ParamOptionContext *> IpuLangParser::ParamStmtContext::paramOption() {
  return getRuleContexts<IpuLangParser::ParamOptionContext>();
}

IpuLangParser::ParamOptionContext* IpuLangParser::ParamStmtContext::paramOption(size_t i) {
  return getRuleContext<IpuLangParser::ParamOptionContext>(i);
}

IpuLangParser::ParamStmtContext::ParamStmtContext(StmtContext *ctx) { copyFrom(ctx); }

antlrcpp::Any IpuLangParser::ParamStmtContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitParamStmt(this);
  else
    return visitor->visitChildren(this);
}
//----------------- MinimizeStmtContext ------------------------------------------------------------------

IpuLangParser::ExprContext* IpuLangParser::MinimizeStmtContext::expr() {
  return getRuleContext<IpuLangParser::ExprContext>(0);
}

IpuLangParser::MinimizeStmtContext::MinimizeStmtContext(StmtContext *ctx) { copyFrom(ctx); }

antlrcpp::Any IpuLangParser::MinimizeStmtContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitMinimizeStmt(this);
  else
    return visitor->visitChildren(this);
}
//----------------- CollectStmtContext ------------------------------------------------------------------

tree::TerminalNode* IpuLangParser::CollectStmtContext::NAME() {
  return getToken(IpuLangParser::NAME, 0);
}

IpuLangParser::ExprContext* IpuLangParser::CollectStmtContext::expr() {
  return getRuleContext<IpuLangParser::ExprContext>(0);
}

IpuLangParser::CollectStmtContext::CollectStmtContext(StmtContext *ctx) { copyFrom(ctx); }

antlrcpp::Any IpuLangParser::CollectStmtContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitCollectStmt(this);
  else
    return visitor->visitChildren(this);
}
//----------------- AssignStmtContext ------------------------------------------------------------------

tree::TerminalNode* IpuLangParser::AssignStmtContext::NAME() {
  return getToken(IpuLangParser::NAME, 0);
}

IpuLangParser::ExprContext* IpuLangParser::AssignStmtContext::expr() {
  return getRuleContext<IpuLangParser::ExprContext>(0);
}

IpuLangParser::AssignStmtContext::AssignStmtContext(StmtContext *ctx) { copyFrom(ctx); }

antlrcpp::Any IpuLangParser::AssignStmtContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitAssignStmt(this);
  else
    return visitor->visitChildren(this);
}
//----------------- ReturnStmtContext ------------------------------------------------------------------

IpuLangParser::ExprContext* IpuLangParser::ReturnStmtContext::expr() {
  return getRuleContext<IpuLangParser::ExprContext>(0);
}

IpuLangParser::ReturnStmtContext::ReturnStmtContext(StmtContext *ctx) { copyFrom(ctx); }

antlrcpp::Any IpuLangParser::ReturnStmtContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitReturnStmt(this);
  else
    return visitor->visitChildren(this);
}
//----------------- AssertStmtContext ------------------------------------------------------------------

std::vector<IpuLangParser::ExprContext *> IpuLangParser::AssertStmtContext::expr() {
  return getRuleContexts<IpuLangParser::ExprContext>();
}

IpuLangParser::ExprContext* IpuLangParser::AssertStmtContext::expr(size_t i) {
  return getRuleContext<IpuLangParser::ExprContext>(i);
}

IpuLangParser::AssertStmtContext::AssertStmtContext(StmtContext *ctx) { copyFrom(ctx); }

antlrcpp::Any IpuLangParser::AssertStmtContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitAssertStmt(this);
  else
    return visitor->visitChildren(this);
}
//----------------- InputStmtContext ------------------------------------------------------------------

tree::TerminalNode* IpuLangParser::InputStmtContext::NAME() {
  return getToken(IpuLangParser::NAME, 0);
}

IpuLangParser::TypeExprContext* IpuLangParser::InputStmtContext::typeExpr() {
  return getRuleContext<IpuLangParser::TypeExprContext>(0);
}

IpuLangParser::InputStmtContext::InputStmtContext(StmtContext *ctx) { copyFrom(ctx); }

antlrcpp::Any IpuLangParser::InputStmtContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitInputStmt(this);
  else
    return visitor->visitChildren(this);
}
//----------------- IfStmtAltContext ------------------------------------------------------------------

IpuLangParser::IfStmtContext* IpuLangParser::IfStmtAltContext::ifStmt() {
  return getRuleContext<IpuLangParser::IfStmtContext>(0);
}

IpuLangParser::IfStmtAltContext::IfStmtAltContext(StmtContext *ctx) { copyFrom(ctx); }

antlrcpp::Any IpuLangParser::IfStmtAltContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitIfStmtAlt(this);
  else
    return visitor->visitChildren(this);
}
//----------------- StageStmtContext ------------------------------------------------------------------

IpuLangParser::StageDeclContext* IpuLangParser::StageStmtContext::stageDecl() {
  return getRuleContext<IpuLangParser::StageDeclContext>(0);
}

IpuLangParser::StageStmtContext::StageStmtContext(StmtContext *ctx) { copyFrom(ctx); }

antlrcpp::Any IpuLangParser::StageStmtContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitStageStmt(this);
  else
    return visitor->visitChildren(this);
}
//----------------- ParallelStmtContext ------------------------------------------------------------------

std::vector<IpuLangParser::StageDeclContext *> IpuLangParser::ParallelStmtContext::stageDecl() {
  return getRuleContexts<IpuLangParser::StageDeclContext>();
}

IpuLangParser::StageDeclContext* IpuLangParser::ParallelStmtContext::stageDecl(size_t i) {
  return getRuleContext<IpuLangParser::StageDeclContext>(i);
}

IpuLangParser::ParallelStmtContext::ParallelStmtContext(StmtContext *ctx) { copyFrom(ctx); }

antlrcpp::Any IpuLangParser::ParallelStmtContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitParallelStmt(this);
  else
    return visitor->visitChildren(this);
}
//----------------- OutputStmtContext ------------------------------------------------------------------

tree::TerminalNode* IpuLangParser::OutputStmtContext::NAME() {
  return getToken(IpuLangParser::NAME, 0);
}

IpuLangParser::ExprContext* IpuLangParser::OutputStmtContext::expr() {
  return getRuleContext<IpuLangParser::ExprContext>(0);
}

IpuLangParser::OutputStmtContext::OutputStmtContext(StmtContext *ctx) { copyFrom(ctx); }

antlrcpp::Any IpuLangParser::OutputStmtContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitOutputStmt(this);
  else
    return visitor->visitChildren(this);
}
IpuLangParser::StmtContext* IpuLangParser::stmt() {
  StmtContext *_localctx = _tracker.createInstance<StmtContext>(_ctx, getState());
  enterRule(_localctx, 24, IpuLangParser::RuleStmt);
  size_t _la = 0;

  auto onExit = finally([=] {
    exitRule();
  });
  try {
    size_t alt;
    setState(247);
    _errHandler->sync(this);
    switch (_input->LA(1)) {
      case IpuLangParser::T__16: {
        _localctx = dynamic_cast<StmtContext *>(_tracker.createInstance<IpuLangParser::InputStmtContext>(_localctx));
        enterOuterAlt(_localctx, 1);
        setState(155);
        match(IpuLangParser::T__16);
        setState(156);
        match(IpuLangParser::NAME);
        setState(157);
        match(IpuLangParser::T__10);
        setState(158);
        typeExpr();
        break;
      }

      case IpuLangParser::T__31: {
        _localctx = dynamic_cast<StmtContext *>(_tracker.createInstance<IpuLangParser::StageStmtContext>(_localctx));
        enterOuterAlt(_localctx, 2);
        setState(159);
        stageDecl();
        break;
      }

      case IpuLangParser::T__17: {
        _localctx = dynamic_cast<StmtContext *>(_tracker.createInstance<IpuLangParser::ParallelStmtContext>(_localctx));
        enterOuterAlt(_localctx, 3);
        setState(160);
        match(IpuLangParser::T__17);
        setState(161);
        match(IpuLangParser::T__14);
        setState(168);
        _errHandler->sync(this);
        _la = _input->LA(1);
        while (_la == IpuLangParser::T__31) {
          setState(162);
          stageDecl();
          setState(164);
          _errHandler->sync(this);

          _la = _input->LA(1);
          if (_la == IpuLangParser::T__0) {
            setState(163);
            match(IpuLangParser::T__0);
          }
          setState(170);
          _errHandler->sync(this);
          _la = _input->LA(1);
        }
        setState(171);
        match(IpuLangParser::T__15);
        break;
      }

      case IpuLangParser::T__18: {
        _localctx = dynamic_cast<StmtContext *>(_tracker.createInstance<IpuLangParser::ParamStmtContext>(_localctx));
        enterOuterAlt(_localctx, 4);
        setState(172);
        match(IpuLangParser::T__18);
        setState(173);
        match(IpuLangParser::NAME);
        setState(174);
        match(IpuLangParser::T__10);
        setState(175);
        typeExpr();
        setState(178);
        _errHandler->sync(this);

        _la = _input->LA(1);
        if (_la == IpuLangParser::T__8) {
          setState(176);
          match(IpuLangParser::T__8);
          setState(177);
          expr(0);
        }
        setState(184);
        _errHandler->sync(this);
        _la = _input->LA(1);
        while (_la == IpuLangParser::T__3) {
          setState(180);
          match(IpuLangParser::T__3);
          setState(181);
          paramOption();
          setState(186);
          _errHandler->sync(this);
          _la = _input->LA(1);
        }
        break;
      }

      case IpuLangParser::T__19: {
        _localctx = dynamic_cast<StmtContext *>(_tracker.createInstance<IpuLangParser::ReturnStmtContext>(_localctx));
        enterOuterAlt(_localctx, 5);
        setState(187);
        match(IpuLangParser::T__19);
        setState(188);
        expr(0);
        break;
      }

      case IpuLangParser::T__32: {
        _localctx = dynamic_cast<StmtContext *>(_tracker.createInstance<IpuLangParser::IfStmtAltContext>(_localctx));
        enterOuterAlt(_localctx, 6);
        setState(189);
        ifStmt();
        break;
      }

      case IpuLangParser::T__20: {
        _localctx = dynamic_cast<StmtContext *>(_tracker.createInstance<IpuLangParser::ForStmtContext>(_localctx));
        enterOuterAlt(_localctx, 7);
        setState(190);
        match(IpuLangParser::T__20);
        setState(191);
        match(IpuLangParser::NAME);
        setState(192);
        match(IpuLangParser::T__21);
        setState(193);
        expr(0);
        setState(194);
        match(IpuLangParser::T__22);
        setState(195);
        expr(0);
        setState(196);
        block();
        break;
      }

      case IpuLangParser::T__23: {
        _localctx = dynamic_cast<StmtContext *>(_tracker.createInstance<IpuLangParser::LoopStmtContext>(_localctx));
        enterOuterAlt(_localctx, 8);
        setState(198);
        match(IpuLangParser::T__23);
        setState(199);
        match(IpuLangParser::T__5);
        setState(200);
        loopVar();
        setState(205);
        _errHandler->sync(this);
        alt = getInterpreter<atn::ParserATNSimulator>()->adaptivePredict(_input, 22, _ctx);
        while (alt != 2 && alt != atn::ATN::INVALID_ALT_NUMBER) {
          if (alt == 1) {
            setState(201);
            match(IpuLangParser::T__3);
            setState(202);
            loopVar(); 
          }
          setState(207);
          _errHandler->sync(this);
          alt = getInterpreter<atn::ParserATNSimulator>()->adaptivePredict(_input, 22, _ctx);
        }
        setState(209);
        _errHandler->sync(this);

        _la = _input->LA(1);
        if (_la == IpuLangParser::T__3) {
          setState(208);
          match(IpuLangParser::T__3);
        }
        setState(211);
        match(IpuLangParser::T__6);
        setState(212);
        match(IpuLangParser::T__24);
        setState(213);
        match(IpuLangParser::NAME);
        setState(214);
        match(IpuLangParser::T__21);
        setState(215);
        expr(0);
        setState(216);
        match(IpuLangParser::T__22);
        setState(217);
        expr(0);
        setState(220);
        _errHandler->sync(this);

        _la = _input->LA(1);
        if (_la == IpuLangParser::T__25) {
          setState(218);
          match(IpuLangParser::T__25);
          setState(219);
          expr(0);
        }
        setState(222);
        block();
        break;
      }

      case IpuLangParser::T__26: {
        _localctx = dynamic_cast<StmtContext *>(_tracker.createInstance<IpuLangParser::CollectStmtContext>(_localctx));
        enterOuterAlt(_localctx, 9);
        setState(224);
        match(IpuLangParser::T__26);
        setState(225);
        match(IpuLangParser::NAME);
        setState(226);
        match(IpuLangParser::T__8);
        setState(227);
        expr(0);
        break;
      }

      case IpuLangParser::T__27: {
        _localctx = dynamic_cast<StmtContext *>(_tracker.createInstance<IpuLangParser::MinimizeStmtContext>(_localctx));
        enterOuterAlt(_localctx, 10);
        setState(228);
        match(IpuLangParser::T__27);
        setState(229);
        expr(0);
        break;
      }

      case IpuLangParser::T__28: {
        _localctx = dynamic_cast<StmtContext *>(_tracker.createInstance<IpuLangParser::AssertStmtContext>(_localctx));
        enterOuterAlt(_localctx, 11);
        setState(230);
        match(IpuLangParser::T__28);
        setState(231);
        expr(0);
        setState(232);
        match(IpuLangParser::T__3);
        setState(233);
        expr(0);
        break;
      }

      case IpuLangParser::T__29: {
        _localctx = dynamic_cast<StmtContext *>(_tracker.createInstance<IpuLangParser::OutputStmtContext>(_localctx));
        enterOuterAlt(_localctx, 12);
        setState(235);
        match(IpuLangParser::T__29);
        setState(237);
        _errHandler->sync(this);

        _la = _input->LA(1);
        if (_la == IpuLangParser::T__30) {
          setState(236);
          dynamic_cast<OutputStmtContext *>(_localctx)->perSample = match(IpuLangParser::T__30);
        }
        setState(239);
        match(IpuLangParser::NAME);
        setState(242);
        _errHandler->sync(this);

        _la = _input->LA(1);
        if (_la == IpuLangParser::T__8) {
          setState(240);
          match(IpuLangParser::T__8);
          setState(241);
          expr(0);
        }
        break;
      }

      case IpuLangParser::NAME: {
        _localctx = dynamic_cast<StmtContext *>(_tracker.createInstance<IpuLangParser::AssignStmtContext>(_localctx));
        enterOuterAlt(_localctx, 13);
        setState(244);
        match(IpuLangParser::NAME);
        setState(245);
        match(IpuLangParser::T__8);
        setState(246);
        expr(0);
        break;
      }

    default:
      throw NoViableAltException(this);
    }
   
  }
  catch (RecognitionException &e) {
    _errHandler->reportError(this, e);
    _localctx->exception = std::current_exception();
    _errHandler->recover(this, _localctx->exception);
  }

  return _localctx;
}

//----------------- LoopVarContext ------------------------------------------------------------------

IpuLangParser::LoopVarContext::LoopVarContext(ParserRuleContext *parent, size_t invokingState)
  : ParserRuleContext(parent, invokingState) {
}

tree::TerminalNode* IpuLangParser::LoopVarContext::NAME() {
  return getToken(IpuLangParser::NAME, 0);
}

IpuLangParser::ExprContext* IpuLangParser::LoopVarContext::expr() {
  return getRuleContext<IpuLangParser::ExprContext>(0);
}


size_t IpuLangParser::LoopVarContext::getRuleIndex() const {
  return IpuLangParser::RuleLoopVar;
}

antlrcpp::Any IpuLangParser::LoopVarContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitLoopVar(this);
  else
    return visitor->visitChildren(this);
}

IpuLangParser::LoopVarContext* IpuLangParser::loopVar() {
  LoopVarContext *_localctx = _tracker.createInstance<LoopVarContext>(_ctx, getState());
  enterRule(_localctx, 26, IpuLangParser::RuleLoopVar);
  size_t _la = 0;

  auto onExit = finally([=] {
    exitRule();
  });
  try {
    enterOuterAlt(_localctx, 1);
    setState(249);
    match(IpuLangParser::NAME);
    setState(252);
    _errHandler->sync(this);

    _la = _input->LA(1);
    if (_la == IpuLangParser::T__8) {
      setState(250);
      match(IpuLangParser::T__8);
      setState(251);
      expr(0);
    }
   
  }
  catch (RecognitionException &e) {
    _errHandler->reportError(this, e);
    _localctx->exception = std::current_exception();
    _errHandler->recover(this, _localctx->exception);
  }

  return _localctx;
}

//----------------- ParamOptionContext ------------------------------------------------------------------

IpuLangParser::ParamOptionContext::ParamOptionContext(ParserRuleContext *parent, size_t invokingState)
  : ParserRuleContext(parent, invokingState) {
}

tree::TerminalNode* IpuLangParser::ParamOptionContext::NAME() {
  return getToken(IpuLangParser::NAME, 0);
}

IpuLangParser::ExprContext* IpuLangParser::ParamOptionContext::expr() {
  return getRuleContext<IpuLangParser::ExprContext>(0);
}


size_t IpuLangParser::ParamOptionContext::getRuleIndex() const {
  return IpuLangParser::RuleParamOption;
}

antlrcpp::Any IpuLangParser::ParamOptionContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitParamOption(this);
  else
    return visitor->visitChildren(this);
}

IpuLangParser::ParamOptionContext* IpuLangParser::paramOption() {
  ParamOptionContext *_localctx = _tracker.createInstance<ParamOptionContext>(_ctx, getState());
  enterRule(_localctx, 28, IpuLangParser::RuleParamOption);

  auto onExit = finally([=] {
    exitRule();
  });
  try {
    enterOuterAlt(_localctx, 1);
    setState(254);
    match(IpuLangParser::NAME);
    setState(255);
    match(IpuLangParser::T__8);
    setState(256);
    expr(0);
   
  }
  catch (RecognitionException &e) {
    _errHandler->reportError(this, e);
    _localctx->exception = std::current_exception();
    _errHandler->recover(this, _localctx->exception);
  }

  return _localctx;
}

//----------------- StageDeclContext ------------------------------------------------------------------

IpuLangParser::StageDeclContext::StageDeclContext(ParserRuleContext *parent, size_t invokingState)
  : ParserRuleContext(parent, invokingState) {
}

tree::TerminalNode* IpuLangParser::StageDeclContext::NAME() {
  return getToken(IpuLangParser::NAME, 0);
}

IpuLangParser::BlockContext* IpuLangParser::StageDeclContext::block() {
  return getRuleContext<IpuLangParser::BlockContext>(0);
}


size_t IpuLangParser::StageDeclContext::getRuleIndex() const {
  return IpuLangParser::RuleStageDecl;
}

antlrcpp::Any IpuLangParser::StageDeclContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitStageDecl(this);
  else
    return visitor->visitChildren(this);
}

IpuLangParser::StageDeclContext* IpuLangParser::stageDecl() {
  StageDeclContext *_localctx = _tracker.createInstance<StageDeclContext>(_ctx, getState());
  enterRule(_localctx, 30, IpuLangParser::RuleStageDecl);

  auto onExit = finally([=] {
    exitRule();
  });
  try {
    enterOuterAlt(_localctx, 1);
    setState(258);
    match(IpuLangParser::T__31);
    setState(259);
    match(IpuLangParser::NAME);
    setState(260);
    block();
   
  }
  catch (RecognitionException &e) {
    _errHandler->reportError(this, e);
    _localctx->exception = std::current_exception();
    _errHandler->recover(this, _localctx->exception);
  }

  return _localctx;
}

//----------------- IfStmtContext ------------------------------------------------------------------

IpuLangParser::IfStmtContext::IfStmtContext(ParserRuleContext *parent, size_t invokingState)
  : ParserRuleContext(parent, invokingState) {
}

IpuLangParser::ExprContext* IpuLangParser::IfStmtContext::expr() {
  return getRuleContext<IpuLangParser::ExprContext>(0);
}

std::vector<IpuLangParser::BlockContext *> IpuLangParser::IfStmtContext::block() {
  return getRuleContexts<IpuLangParser::BlockContext>();
}

IpuLangParser::BlockContext* IpuLangParser::IfStmtContext::block(size_t i) {
  return getRuleContext<IpuLangParser::BlockContext>(i);
}

IpuLangParser::IfStmtContext* IpuLangParser::IfStmtContext::ifStmt() {
  return getRuleContext<IpuLangParser::IfStmtContext>(0);
}


size_t IpuLangParser::IfStmtContext::getRuleIndex() const {
  return IpuLangParser::RuleIfStmt;
}

antlrcpp::Any IpuLangParser::IfStmtContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitIfStmt(this);
  else
    return visitor->visitChildren(this);
}

IpuLangParser::IfStmtContext* IpuLangParser::ifStmt() {
  IfStmtContext *_localctx = _tracker.createInstance<IfStmtContext>(_ctx, getState());
  enterRule(_localctx, 32, IpuLangParser::RuleIfStmt);
  size_t _la = 0;

  auto onExit = finally([=] {
    exitRule();
  });
  try {
    enterOuterAlt(_localctx, 1);
    setState(262);
    match(IpuLangParser::T__32);
    setState(263);
    expr(0);
    setState(264);
    block();
    setState(270);
    _errHandler->sync(this);

    _la = _input->LA(1);
    if (_la == IpuLangParser::T__33) {
      setState(265);
      match(IpuLangParser::T__33);
      setState(268);
      _errHandler->sync(this);
      switch (_input->LA(1)) {
        case IpuLangParser::T__32: {
          setState(266);
          ifStmt();
          break;
        }

        case IpuLangParser::T__14: {
          setState(267);
          block();
          break;
        }

      default:
        throw NoViableAltException(this);
      }
    }
   
  }
  catch (RecognitionException &e) {
    _errHandler->reportError(this, e);
    _localctx->exception = std::current_exception();
    _errHandler->recover(this, _localctx->exception);
  }

  return _localctx;
}

//----------------- ExprContext ------------------------------------------------------------------

IpuLangParser::ExprContext::ExprContext(ParserRuleContext *parent, size_t invokingState)
  : ParserRuleContext(parent, invokingState) {
}


size_t IpuLangParser::ExprContext::getRuleIndex() const {
  return IpuLangParser::RuleExpr;
}

void IpuLangParser::ExprContext::copyFrom(ExprContext *ctx) {
  ParserRuleContext::copyFrom(ctx);
}

//----------------- IntExprContext ------------------------------------------------------------------

tree::TerminalNode* IpuLangParser::IntExprContext::INT() {
  return getToken(IpuLangParser::INT, 0);
}

IpuLangParser::IntExprContext::IntExprContext(ExprContext *ctx) { copyFrom(ctx); }

antlrcpp::Any IpuLangParser::IntExprContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitIntExpr(this);
  else
    return visitor->visitChildren(this);
}
//----------------- OrExprContext ------------------------------------------------------------------

std::vector<IpuLangParser::ExprContext *> IpuLangParser::OrExprContext::expr() {
  return getRuleContexts<IpuLangParser::ExprContext>();
}

IpuLangParser::ExprContext* IpuLangParser::OrExprContext::expr(size_t i) {
  return getRuleContext<IpuLangParser::ExprContext>(i);
}

IpuLangParser::OrExprContext::OrExprContext(ExprContext *ctx) { copyFrom(ctx); }

antlrcpp::Any IpuLangParser::OrExprContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitOrExpr(this);
  else
    return visitor->visitChildren(this);
}
//----------------- NameExprContext ------------------------------------------------------------------

tree::TerminalNode* IpuLangParser::NameExprContext::NAME() {
  return getToken(IpuLangParser::NAME, 0);
}

IpuLangParser::NameExprContext::NameExprContext(ExprContext *ctx) { copyFrom(ctx); }

antlrcpp::Any IpuLangParser::NameExprContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitNameExpr(this);
  else
    return visitor->visitChildren(this);
}
//----------------- ParenExprContext ------------------------------------------------------------------

IpuLangParser::ExprContext* IpuLangParser::ParenExprContext::expr() {
  return getRuleContext<IpuLangParser::ExprContext>(0);
}

IpuLangParser::ParenExprContext::ParenExprContext(ExprContext *ctx) { copyFrom(ctx); }

antlrcpp::Any IpuLangParser::ParenExprContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitParenExpr(this);
  else
    return visitor->visitChildren(this);
}
//----------------- StringExprContext ------------------------------------------------------------------

tree::TerminalNode* IpuLangParser::StringExprContext::STRING() {
  return getToken(IpuLangParser::STRING, 0);
}

IpuLangParser::StringExprContext::StringExprContext(ExprContext *ctx) { copyFrom(ctx); }

antlrcpp::Any IpuLangParser::StringExprContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitStringExpr(this);
  else
    return visitor->visitChildren(this);
}
//----------------- IndexExprContext ------------------------------------------------------------------

IpuLangParser::ExprContext* IpuLangParser::IndexExprContext::expr() {
  return getRuleContext<IpuLangParser::ExprContext>(0);
}

std::vector<IpuLangParser::SubscriptContext *> IpuLangParser::IndexExprContext::subscript() {
  return getRuleContexts<IpuLangParser::SubscriptContext>();
}

IpuLangParser::SubscriptContext* IpuLangParser::IndexExprContext::subscript(size_t i) {
  return getRuleContext<IpuLangParser::SubscriptContext>(i);
}

IpuLangParser::IndexExprContext::IndexExprContext(ExprContext *ctx) { copyFrom(ctx); }

antlrcpp::Any IpuLangParser::IndexExprContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitIndexExpr(this);
  else
    return visitor->visitChildren(this);
}
//----------------- FloatExprContext ------------------------------------------------------------------

tree::TerminalNode* IpuLangParser::FloatExprContext::FLOAT() {
  return getToken(IpuLangParser::FLOAT, 0);
}

IpuLangParser::FloatExprContext::FloatExprContext(ExprContext *ctx) { copyFrom(ctx); }

antlrcpp::Any IpuLangParser::FloatExprContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitFloatExpr(this);
  else
    return visitor->visitChildren(this);
}
//----------------- UnaryExprContext ------------------------------------------------------------------

IpuLangParser::ExprContext* IpuLangParser::UnaryExprContext::expr() {
  return getRuleContext<IpuLangParser::ExprContext>(0);
}

IpuLangParser::UnaryExprContext::UnaryExprContext(ExprContext *ctx) { copyFrom(ctx); }

antlrcpp::Any IpuLangParser::UnaryExprContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitUnaryExpr(this);
  else
    return visitor->visitChildren(this);
}
//----------------- NotExprContext ------------------------------------------------------------------

IpuLangParser::ExprContext* IpuLangParser::NotExprContext::expr() {
  return getRuleContext<IpuLangParser::ExprContext>(0);
}

IpuLangParser::NotExprContext::NotExprContext(ExprContext *ctx) { copyFrom(ctx); }

antlrcpp::Any IpuLangParser::NotExprContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitNotExpr(this);
  else
    return visitor->visitChildren(this);
}
//----------------- AddExprContext ------------------------------------------------------------------

std::vector<IpuLangParser::ExprContext *> IpuLangParser::AddExprContext::expr() {
  return getRuleContexts<IpuLangParser::ExprContext>();
}

IpuLangParser::ExprContext* IpuLangParser::AddExprContext::expr(size_t i) {
  return getRuleContext<IpuLangParser::ExprContext>(i);
}

IpuLangParser::AddExprContext::AddExprContext(ExprContext *ctx) { copyFrom(ctx); }

antlrcpp::Any IpuLangParser::AddExprContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitAddExpr(this);
  else
    return visitor->visitChildren(this);
}
//----------------- MulExprContext ------------------------------------------------------------------

std::vector<IpuLangParser::ExprContext *> IpuLangParser::MulExprContext::expr() {
  return getRuleContexts<IpuLangParser::ExprContext>();
}

IpuLangParser::ExprContext* IpuLangParser::MulExprContext::expr(size_t i) {
  return getRuleContext<IpuLangParser::ExprContext>(i);
}

IpuLangParser::MulExprContext::MulExprContext(ExprContext *ctx) { copyFrom(ctx); }

antlrcpp::Any IpuLangParser::MulExprContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitMulExpr(this);
  else
    return visitor->visitChildren(this);
}
//----------------- AttrExprContext ------------------------------------------------------------------

IpuLangParser::ExprContext* IpuLangParser::AttrExprContext::expr() {
  return getRuleContext<IpuLangParser::ExprContext>(0);
}

tree::TerminalNode* IpuLangParser::AttrExprContext::NAME() {
  return getToken(IpuLangParser::NAME, 0);
}

IpuLangParser::AttrExprContext::AttrExprContext(ExprContext *ctx) { copyFrom(ctx); }

antlrcpp::Any IpuLangParser::AttrExprContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitAttrExpr(this);
  else
    return visitor->visitChildren(this);
}
//----------------- BoolExprContext ------------------------------------------------------------------

IpuLangParser::BoolExprContext::BoolExprContext(ExprContext *ctx) { copyFrom(ctx); }

antlrcpp::Any IpuLangParser::BoolExprContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitBoolExpr(this);
  else
    return visitor->visitChildren(this);
}
//----------------- PowExprContext ------------------------------------------------------------------

std::vector<IpuLangParser::ExprContext *> IpuLangParser::PowExprContext::expr() {
  return getRuleContexts<IpuLangParser::ExprContext>();
}

IpuLangParser::ExprContext* IpuLangParser::PowExprContext::expr(size_t i) {
  return getRuleContext<IpuLangParser::ExprContext>(i);
}

IpuLangParser::PowExprContext::PowExprContext(ExprContext *ctx) { copyFrom(ctx); }

antlrcpp::Any IpuLangParser::PowExprContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitPowExpr(this);
  else
    return visitor->visitChildren(this);
}
//----------------- CallExprContext ------------------------------------------------------------------

IpuLangParser::ExprContext* IpuLangParser::CallExprContext::expr() {
  return getRuleContext<IpuLangParser::ExprContext>(0);
}

IpuLangParser::ArgListContext* IpuLangParser::CallExprContext::argList() {
  return getRuleContext<IpuLangParser::ArgListContext>(0);
}

IpuLangParser::CallExprContext::CallExprContext(ExprContext *ctx) { copyFrom(ctx); }

antlrcpp::Any IpuLangParser::CallExprContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitCallExpr(this);
  else
    return visitor->visitChildren(this);
}
//----------------- ListExprContext ------------------------------------------------------------------

std::vector<IpuLangParser::ExprContext *> IpuLangParser::ListExprContext::expr() {
  return getRuleContexts<IpuLangParser::ExprContext>();
}

IpuLangParser::ExprContext* IpuLangParser::ListExprContext::expr(size_t i) {
  return getRuleContext<IpuLangParser::ExprContext>(i);
}

IpuLangParser::ListExprContext::ListExprContext(ExprContext *ctx) { copyFrom(ctx); }

antlrcpp::Any IpuLangParser::ListExprContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitListExpr(this);
  else
    return visitor->visitChildren(this);
}
//----------------- CompareExprContext ------------------------------------------------------------------

std::vector<IpuLangParser::ExprContext *> IpuLangParser::CompareExprContext::expr() {
  return getRuleContexts<IpuLangParser::ExprContext>();
}

IpuLangParser::ExprContext* IpuLangParser::CompareExprContext::expr(size_t i) {
  return getRuleContext<IpuLangParser::ExprContext>(i);
}

IpuLangParser::CompareExprContext::CompareExprContext(ExprContext *ctx) { copyFrom(ctx); }

antlrcpp::Any IpuLangParser::CompareExprContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitCompareExpr(this);
  else
    return visitor->visitChildren(this);
}
//----------------- AndExprContext ------------------------------------------------------------------

std::vector<IpuLangParser::ExprContext *> IpuLangParser::AndExprContext::expr() {
  return getRuleContexts<IpuLangParser::ExprContext>();
}

IpuLangParser::ExprContext* IpuLangParser::AndExprContext::expr(size_t i) {
  return getRuleContext<IpuLangParser::ExprContext>(i);
}

IpuLangParser::AndExprContext::AndExprContext(ExprContext *ctx) { copyFrom(ctx); }

antlrcpp::Any IpuLangParser::AndExprContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitAndExpr(this);
  else
    return visitor->visitChildren(this);
}

IpuLangParser::ExprContext* IpuLangParser::expr() {
   return expr(0);
}

IpuLangParser::ExprContext* IpuLangParser::expr(int precedence) {
  ParserRuleContext *parentContext = _ctx;
  size_t parentState = getState();
  IpuLangParser::ExprContext *_localctx = _tracker.createInstance<ExprContext>(_ctx, parentState);
  IpuLangParser::ExprContext *previousContext = _localctx;
  (void)previousContext; // Silence compiler, in case the context is not used by generated code.
  size_t startState = 34;
  enterRecursionRule(_localctx, 34, IpuLangParser::RuleExpr, precedence);

    size_t _la = 0;

  auto onExit = finally([=] {
    unrollRecursionContexts(parentContext);
  });
  try {
    size_t alt;
    enterOuterAlt(_localctx, 1);
    setState(301);
    _errHandler->sync(this);
    switch (_input->LA(1)) {
      case IpuLangParser::T__36:
      case IpuLangParser::T__37: {
        _localctx = _tracker.createInstance<UnaryExprContext>(_localctx);
        _ctx = _localctx;
        previousContext = _localctx;

        setState(273);
        dynamic_cast<UnaryExprContext *>(_localctx)->op = _input->LT(1);
        _la = _input->LA(1);
        if (!(_la == IpuLangParser::T__36

        || _la == IpuLangParser::T__37)) {
          dynamic_cast<UnaryExprContext *>(_localctx)->op = _errHandler->recoverInline(this);
        }
        else {
          _errHandler->reportMatch(this);
          consume();
        }
        setState(274);
        expr(14);
        break;
      }

      case IpuLangParser::T__49: {
        _localctx = _tracker.createInstance<NotExprContext>(_localctx);
        _ctx = _localctx;
        previousContext = _localctx;
        setState(275);
        match(IpuLangParser::T__49);
        setState(276);
        expr(10);
        break;
      }

      case IpuLangParser::INT: {
        _localctx = _tracker.createInstance<IntExprContext>(_localctx);
        _ctx = _localctx;
        previousContext = _localctx;
        setState(277);
        match(IpuLangParser::INT);
        break;
      }

      case IpuLangParser::FLOAT: {
        _localctx = _tracker.createInstance<FloatExprContext>(_localctx);
        _ctx = _localctx;
        previousContext = _localctx;
        setState(278);
        match(IpuLangParser::FLOAT);
        break;
      }

      case IpuLangParser::T__52:
      case IpuLangParser::T__53: {
        _localctx = _tracker.createInstance<BoolExprContext>(_localctx);
        _ctx = _localctx;
        previousContext = _localctx;
        setState(279);
        _la = _input->LA(1);
        if (!(_la == IpuLangParser::T__52

        || _la == IpuLangParser::T__53)) {
        _errHandler->recoverInline(this);
        }
        else {
          _errHandler->reportMatch(this);
          consume();
        }
        break;
      }

      case IpuLangParser::STRING: {
        _localctx = _tracker.createInstance<StringExprContext>(_localctx);
        _ctx = _localctx;
        previousContext = _localctx;
        setState(280);
        match(IpuLangParser::STRING);
        break;
      }

      case IpuLangParser::NAME: {
        _localctx = _tracker.createInstance<NameExprContext>(_localctx);
        _ctx = _localctx;
        previousContext = _localctx;
        setState(281);
        match(IpuLangParser::NAME);
        break;
      }

      case IpuLangParser::T__11: {
        _localctx = _tracker.createInstance<ListExprContext>(_localctx);
        _ctx = _localctx;
        previousContext = _localctx;
        setState(282);
        match(IpuLangParser::T__11);
        setState(294);
        _errHandler->sync(this);

        _la = _input->LA(1);
        if ((((_la & ~ 0x3fULL) == 0) &&
          ((1ULL << _la) & ((1ULL << IpuLangParser::T__5)
          | (1ULL << IpuLangParser::T__11)
          | (1ULL << IpuLangParser::T__36)
          | (1ULL << IpuLangParser::T__37)
          | (1ULL << IpuLangParser::T__49)
          | (1ULL << IpuLangParser::T__52)
          | (1ULL << IpuLangParser::T__53)
          | (1ULL << IpuLangParser::NAME)
          | (1ULL << IpuLangParser::FLOAT)
          | (1ULL << IpuLangParser::INT)
          | (1ULL << IpuLangParser::STRING))) != 0)) {
          setState(283);
          expr(0);
          setState(288);
          _errHandler->sync(this);
          alt = getInterpreter<atn::ParserATNSimulator>()->adaptivePredict(_input, 31, _ctx);
          while (alt != 2 && alt != atn::ATN::INVALID_ALT_NUMBER) {
            if (alt == 1) {
              setState(284);
              match(IpuLangParser::T__3);
              setState(285);
              expr(0); 
            }
            setState(290);
            _errHandler->sync(this);
            alt = getInterpreter<atn::ParserATNSimulator>()->adaptivePredict(_input, 31, _ctx);
          }
          setState(292);
          _errHandler->sync(this);

          _la = _input->LA(1);
          if (_la == IpuLangParser::T__3) {
            setState(291);
            match(IpuLangParser::T__3);
          }
        }
        setState(296);
        match(IpuLangParser::T__12);
        break;
      }

      case IpuLangParser::T__5: {
        _localctx = _tracker.createInstance<ParenExprContext>(_localctx);
        _ctx = _localctx;
        previousContext = _localctx;
        setState(297);
        match(IpuLangParser::T__5);
        setState(298);
        expr(0);
        setState(299);
        match(IpuLangParser::T__6);
        break;
      }

    default:
      throw NoViableAltException(this);
    }
    _ctx->stop = _input->LT(-1);
    setState(344);
    _errHandler->sync(this);
    alt = getInterpreter<atn::ParserATNSimulator>()->adaptivePredict(_input, 38, _ctx);
    while (alt != 2 && alt != atn::ATN::INVALID_ALT_NUMBER) {
      if (alt == 1) {
        if (!_parseListeners.empty())
          triggerExitRuleEvent();
        previousContext = _localctx;
        setState(342);
        _errHandler->sync(this);
        switch (getInterpreter<atn::ParserATNSimulator>()->adaptivePredict(_input, 37, _ctx)) {
        case 1: {
          auto newContext = _tracker.createInstance<PowExprContext>(_tracker.createInstance<ExprContext>(parentContext, parentState));
          _localctx = newContext;
          pushNewRecursionContext(newContext, startState, RuleExpr);
          setState(303);

          if (!(precpred(_ctx, 15))) throw FailedPredicateException(this, "precpred(_ctx, 15)");
          setState(304);
          match(IpuLangParser::T__35);
          setState(305);
          expr(15);
          break;
        }

        case 2: {
          auto newContext = _tracker.createInstance<MulExprContext>(_tracker.createInstance<ExprContext>(parentContext, parentState));
          _localctx = newContext;
          pushNewRecursionContext(newContext, startState, RuleExpr);
          setState(306);

          if (!(precpred(_ctx, 13))) throw FailedPredicateException(this, "precpred(_ctx, 13)");
          setState(307);
          dynamic_cast<MulExprContext *>(_localctx)->op = _input->LT(1);
          _la = _input->LA(1);
          if (!((((_la & ~ 0x3fULL) == 0) &&
            ((1ULL << _la) & ((1ULL << IpuLangParser::T__38)
            | (1ULL << IpuLangParser::T__39)
            | (1ULL << IpuLangParser::T__40)
            | (1ULL << IpuLangParser::T__41)
            | (1ULL << IpuLangParser::T__42))) != 0))) {
            dynamic_cast<MulExprContext *>(_localctx)->op = _errHandler->recoverInline(this);
          }
          else {
            _errHandler->reportMatch(this);
            consume();
          }
          setState(308);
          expr(14);
          break;
        }

        case 3: {
          auto newContext = _tracker.createInstance<AddExprContext>(_tracker.createInstance<ExprContext>(parentContext, parentState));
          _localctx = newContext;
          pushNewRecursionContext(newContext, startState, RuleExpr);
          setState(309);

          if (!(precpred(_ctx, 12))) throw FailedPredicateException(this, "precpred(_ctx, 12)");
          setState(310);
          dynamic_cast<AddExprContext *>(_localctx)->op = _input->LT(1);
          _la = _input->LA(1);
          if (!(_la == IpuLangParser::T__36

          || _la == IpuLangParser::T__37)) {
            dynamic_cast<AddExprContext *>(_localctx)->op = _errHandler->recoverInline(this);
          }
          else {
            _errHandler->reportMatch(this);
            consume();
          }
          setState(311);
          expr(13);
          break;
        }

        case 4: {
          auto newContext = _tracker.createInstance<CompareExprContext>(_tracker.createInstance<ExprContext>(parentContext, parentState));
          _localctx = newContext;
          pushNewRecursionContext(newContext, startState, RuleExpr);
          setState(312);

          if (!(precpred(_ctx, 11))) throw FailedPredicateException(this, "precpred(_ctx, 11)");
          setState(313);
          dynamic_cast<CompareExprContext *>(_localctx)->op = _input->LT(1);
          _la = _input->LA(1);
          if (!((((_la & ~ 0x3fULL) == 0) &&
            ((1ULL << _la) & ((1ULL << IpuLangParser::T__43)
            | (1ULL << IpuLangParser::T__44)
            | (1ULL << IpuLangParser::T__45)
            | (1ULL << IpuLangParser::T__46)
            | (1ULL << IpuLangParser::T__47)
            | (1ULL << IpuLangParser::T__48))) != 0))) {
            dynamic_cast<CompareExprContext *>(_localctx)->op = _errHandler->recoverInline(this);
          }
          else {
            _errHandler->reportMatch(this);
            consume();
          }
          setState(314);
          expr(12);
          break;
        }

        case 5: {
          auto newContext = _tracker.createInstance<AndExprContext>(_tracker.createInstance<ExprContext>(parentContext, parentState));
          _localctx = newContext;
          pushNewRecursionContext(newContext, startState, RuleExpr);
          setState(315);

          if (!(precpred(_ctx, 9))) throw FailedPredicateException(this, "precpred(_ctx, 9)");
          setState(316);
          match(IpuLangParser::T__50);
          setState(317);
          expr(10);
          break;
        }

        case 6: {
          auto newContext = _tracker.createInstance<OrExprContext>(_tracker.createInstance<ExprContext>(parentContext, parentState));
          _localctx = newContext;
          pushNewRecursionContext(newContext, startState, RuleExpr);
          setState(318);

          if (!(precpred(_ctx, 8))) throw FailedPredicateException(this, "precpred(_ctx, 8)");
          setState(319);
          match(IpuLangParser::T__51);
          setState(320);
          expr(9);
          break;
        }

        case 7: {
          auto newContext = _tracker.createInstance<CallExprContext>(_tracker.createInstance<ExprContext>(parentContext, parentState));
          _localctx = newContext;
          pushNewRecursionContext(newContext, startState, RuleExpr);
          setState(321);

          if (!(precpred(_ctx, 18))) throw FailedPredicateException(this, "precpred(_ctx, 18)");
          setState(322);
          match(IpuLangParser::T__5);
          setState(324);
          _errHandler->sync(this);

          _la = _input->LA(1);
          if ((((_la & ~ 0x3fULL) == 0) &&
            ((1ULL << _la) & ((1ULL << IpuLangParser::T__5)
            | (1ULL << IpuLangParser::T__11)
            | (1ULL << IpuLangParser::T__36)
            | (1ULL << IpuLangParser::T__37)
            | (1ULL << IpuLangParser::T__49)
            | (1ULL << IpuLangParser::T__52)
            | (1ULL << IpuLangParser::T__53)
            | (1ULL << IpuLangParser::NAME)
            | (1ULL << IpuLangParser::FLOAT)
            | (1ULL << IpuLangParser::INT)
            | (1ULL << IpuLangParser::STRING))) != 0)) {
            setState(323);
            argList();
          }
          setState(326);
          match(IpuLangParser::T__6);
          break;
        }

        case 8: {
          auto newContext = _tracker.createInstance<AttrExprContext>(_tracker.createInstance<ExprContext>(parentContext, parentState));
          _localctx = newContext;
          pushNewRecursionContext(newContext, startState, RuleExpr);
          setState(327);

          if (!(precpred(_ctx, 17))) throw FailedPredicateException(this, "precpred(_ctx, 17)");
          setState(328);
          match(IpuLangParser::T__34);
          setState(329);
          match(IpuLangParser::NAME);
          break;
        }

        case 9: {
          auto newContext = _tracker.createInstance<IndexExprContext>(_tracker.createInstance<ExprContext>(parentContext, parentState));
          _localctx = newContext;
          pushNewRecursionContext(newContext, startState, RuleExpr);
          setState(330);

          if (!(precpred(_ctx, 16))) throw FailedPredicateException(this, "precpred(_ctx, 16)");
          setState(331);
          match(IpuLangParser::T__11);
          setState(332);
          subscript();
          setState(337);
          _errHandler->sync(this);
          _la = _input->LA(1);
          while (_la == IpuLangParser::T__3) {
            setState(333);
            match(IpuLangParser::T__3);
            setState(334);
            subscript();
            setState(339);
            _errHandler->sync(this);
            _la = _input->LA(1);
          }
          setState(340);
          match(IpuLangParser::T__12);
          break;
        }

        } 
      }
      setState(346);
      _errHandler->sync(this);
      alt = getInterpreter<atn::ParserATNSimulator>()->adaptivePredict(_input, 38, _ctx);
    }
  }
  catch (RecognitionException &e) {
    _errHandler->reportError(this, e);
    _localctx->exception = std::current_exception();
    _errHandler->recover(this, _localctx->exception);
  }
  return _localctx;
}

//----------------- ArgListContext ------------------------------------------------------------------

IpuLangParser::ArgListContext::ArgListContext(ParserRuleContext *parent, size_t invokingState)
  : ParserRuleContext(parent, invokingState) {
}

std::vector<IpuLangParser::ArgContext *> IpuLangParser::ArgListContext::arg() {
  return getRuleContexts<IpuLangParser::ArgContext>();
}

IpuLangParser::ArgContext* IpuLangParser::ArgListContext::arg(size_t i) {
  return getRuleContext<IpuLangParser::ArgContext>(i);
}


size_t IpuLangParser::ArgListContext::getRuleIndex() const {
  return IpuLangParser::RuleArgList;
}

antlrcpp::Any IpuLangParser::ArgListContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitArgList(this);
  else
    return visitor->visitChildren(this);
}

IpuLangParser::ArgListContext* IpuLangParser::argList() {
  ArgListContext *_localctx = _tracker.createInstance<ArgListContext>(_ctx, getState());
  enterRule(_localctx, 36, IpuLangParser::RuleArgList);
  size_t _la = 0;

  auto onExit = finally([=] {
    exitRule();
  });
  try {
    size_t alt;
    enterOuterAlt(_localctx, 1);
    setState(347);
    arg();
    setState(352);
    _errHandler->sync(this);
    alt = getInterpreter<atn::ParserATNSimulator>()->adaptivePredict(_input, 39, _ctx);
    while (alt != 2 && alt != atn::ATN::INVALID_ALT_NUMBER) {
      if (alt == 1) {
        setState(348);
        match(IpuLangParser::T__3);
        setState(349);
        arg(); 
      }
      setState(354);
      _errHandler->sync(this);
      alt = getInterpreter<atn::ParserATNSimulator>()->adaptivePredict(_input, 39, _ctx);
    }
    setState(356);
    _errHandler->sync(this);

    _la = _input->LA(1);
    if (_la == IpuLangParser::T__3) {
      setState(355);
      match(IpuLangParser::T__3);
    }
   
  }
  catch (RecognitionException &e) {
    _errHandler->reportError(this, e);
    _localctx->exception = std::current_exception();
    _errHandler->recover(this, _localctx->exception);
  }

  return _localctx;
}

//----------------- ArgContext ------------------------------------------------------------------

IpuLangParser::ArgContext::ArgContext(ParserRuleContext *parent, size_t invokingState)
  : ParserRuleContext(parent, invokingState) {
}

tree::TerminalNode* IpuLangParser::ArgContext::NAME() {
  return getToken(IpuLangParser::NAME, 0);
}

IpuLangParser::ExprContext* IpuLangParser::ArgContext::expr() {
  return getRuleContext<IpuLangParser::ExprContext>(0);
}


size_t IpuLangParser::ArgContext::getRuleIndex() const {
  return IpuLangParser::RuleArg;
}

antlrcpp::Any IpuLangParser::ArgContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitArg(this);
  else
    return visitor->visitChildren(this);
}

IpuLangParser::ArgContext* IpuLangParser::arg() {
  ArgContext *_localctx = _tracker.createInstance<ArgContext>(_ctx, getState());
  enterRule(_localctx, 38, IpuLangParser::RuleArg);

  auto onExit = finally([=] {
    exitRule();
  });
  try {
    setState(362);
    _errHandler->sync(this);
    switch (getInterpreter<atn::ParserATNSimulator>()->adaptivePredict(_input, 41, _ctx)) {
    case 1: {
      enterOuterAlt(_localctx, 1);
      setState(358);
      match(IpuLangParser::NAME);
      setState(359);
      match(IpuLangParser::T__8);
      setState(360);
      expr(0);
      break;
    }

    case 2: {
      enterOuterAlt(_localctx, 2);
      setState(361);
      expr(0);
      break;
    }

    }
   
  }
  catch (RecognitionException &e) {
    _errHandler->reportError(this, e);
    _localctx->exception = std::current_exception();
    _errHandler->recover(this, _localctx->exception);
  }

  return _localctx;
}

//----------------- SubscriptContext ------------------------------------------------------------------

IpuLangParser::SubscriptContext::SubscriptContext(ParserRuleContext *parent, size_t invokingState)
  : ParserRuleContext(parent, invokingState) {
}

std::vector<IpuLangParser::ExprContext *> IpuLangParser::SubscriptContext::expr() {
  return getRuleContexts<IpuLangParser::ExprContext>();
}

IpuLangParser::ExprContext* IpuLangParser::SubscriptContext::expr(size_t i) {
  return getRuleContext<IpuLangParser::ExprContext>(i);
}


size_t IpuLangParser::SubscriptContext::getRuleIndex() const {
  return IpuLangParser::RuleSubscript;
}

antlrcpp::Any IpuLangParser::SubscriptContext::accept(tree::ParseTreeVisitor *visitor) {
  if (auto parserVisitor = dynamic_cast<IpuLangVisitor*>(visitor))
    return parserVisitor->visitSubscript(this);
  else
    return visitor->visitChildren(this);
}

IpuLangParser::SubscriptContext* IpuLangParser::subscript() {
  SubscriptContext *_localctx = _tracker.createInstance<SubscriptContext>(_ctx, getState());
  enterRule(_localctx, 40, IpuLangParser::RuleSubscript);
  size_t _la = 0;

  auto onExit = finally([=] {
    exitRule();
  });
  try {
    setState(379);
    _errHandler->sync(this);
    switch (getInterpreter<atn::ParserATNSimulator>()->adaptivePredict(_input, 46, _ctx)) {
    case 1: {
      enterOuterAlt(_localctx, 1);
      setState(364);
      match(IpuLangParser::T__13);
      break;
    }

    case 2: {
      enterOuterAlt(_localctx, 2);
      setState(365);
      expr(0);
      break;
    }

    case 3: {
      enterOuterAlt(_localctx, 3);
      setState(367);
      _errHandler->sync(this);

      _la = _input->LA(1);
      if ((((_la & ~ 0x3fULL) == 0) &&
        ((1ULL << _la) & ((1ULL << IpuLangParser::T__5)
        | (1ULL << IpuLangParser::T__11)
        | (1ULL << IpuLangParser::T__36)
        | (1ULL << IpuLangParser::T__37)
        | (1ULL << IpuLangParser::T__49)
        | (1ULL << IpuLangParser::T__52)
        | (1ULL << IpuLangParser::T__53)
        | (1ULL << IpuLangParser::NAME)
        | (1ULL << IpuLangParser::FLOAT)
        | (1ULL << IpuLangParser::INT)
        | (1ULL << IpuLangParser::STRING))) != 0)) {
        setState(366);
        dynamic_cast<SubscriptContext *>(_localctx)->lo = expr(0);
      }
      setState(369);
      match(IpuLangParser::T__10);
      setState(371);
      _errHandler->sync(this);

      _la = _input->LA(1);
      if ((((_la & ~ 0x3fULL) == 0) &&
        ((1ULL << _la) & ((1ULL << IpuLangParser::T__5)
        | (1ULL << IpuLangParser::T__11)
        | (1ULL << IpuLangParser::T__36)
        | (1ULL << IpuLangParser::T__37)
        | (1ULL << IpuLangParser::T__49)
        | (1ULL << IpuLangParser::T__52)
        | (1ULL << IpuLangParser::T__53)
        | (1ULL << IpuLangParser::NAME)
        | (1ULL << IpuLangParser::FLOAT)
        | (1ULL << IpuLangParser::INT)
        | (1ULL << IpuLangParser::STRING))) != 0)) {
        setState(370);
        dynamic_cast<SubscriptContext *>(_localctx)->hi = expr(0);
      }
      setState(377);
      _errHandler->sync(this);

      _la = _input->LA(1);
      if (_la == IpuLangParser::T__10) {
        setState(373);
        match(IpuLangParser::T__10);
        setState(375);
        _errHandler->sync(this);

        _la = _input->LA(1);
        if ((((_la & ~ 0x3fULL) == 0) &&
          ((1ULL << _la) & ((1ULL << IpuLangParser::T__5)
          | (1ULL << IpuLangParser::T__11)
          | (1ULL << IpuLangParser::T__36)
          | (1ULL << IpuLangParser::T__37)
          | (1ULL << IpuLangParser::T__49)
          | (1ULL << IpuLangParser::T__52)
          | (1ULL << IpuLangParser::T__53)
          | (1ULL << IpuLangParser::NAME)
          | (1ULL << IpuLangParser::FLOAT)
          | (1ULL << IpuLangParser::INT)
          | (1ULL << IpuLangParser::STRING))) != 0)) {
          setState(374);
          dynamic_cast<SubscriptContext *>(_localctx)->step = expr(0);
        }
      }
      break;
    }

    }
   
  }
  catch (RecognitionException &e) {
    _errHandler->reportError(this, e);
    _localctx->exception = std::current_exception();
    _errHandler->recover(this, _localctx->exception);
  }

  return _localctx;
}

bool IpuLangParser::sempred(RuleContext *context, size_t ruleIndex, size_t predicateIndex) {
  switch (ruleIndex) {
    case 17: return exprSempred(dynamic_cast<ExprContext *>(context), predicateIndex);

  default:
    break;
  }
  return true;
}

bool IpuLangParser::exprSempred(ExprContext *_localctx, size_t predicateIndex) {
  switch (predicateIndex) {
    case 0: return precpred(_ctx, 15);
    case 1: return precpred(_ctx, 13);
    case 2: return precpred(_ctx, 12);
    case 3: return precpred(_ctx, 11);
    case 4: return precpred(_ctx, 9);
    case 5: return precpred(_ctx, 8);
    case 6: return precpred(_ctx, 18);
    case 7: return precpred(_ctx, 17);
    case 8: return precpred(_ctx, 16);

  default:
    break;
  }
  return true;
}

// Static vars and initialization.
std::vector<dfa::DFA> IpuLangParser::_decisionToDFA;
atn::PredictionContextCache IpuLangParser::_sharedContextCache;

// We own the ATN which in turn owns the ATN states.
atn::ATN IpuLangParser::_atn;
std::vector<uint16_t> IpuLangParser::_serializedATN;

std::vector<std::string> IpuLangParser::_ruleNames = {
  "file", "topItem", "importDecl", "fromImportDecl", "modelDecl", "defDecl", 
  "layerDecl", "paramList", "paramDecl", "typeExpr", "dim", "block", "stmt", 
  "loopVar", "paramOption", "stageDecl", "ifStmt", "expr", "argList", "arg", 
  "subscript"
};

std::vector<std::string> IpuLangParser::_literalNames = {
  "", "';'", "'import'", "'from'", "','", "'model'", "'('", "')'", "'def'", 
  "'='", "'layer'", "':'", "'['", "']'", "'...'", "'{'", "'}'", "'input'", 
  "'parallel'", "'param'", "'return'", "'for'", "'in'", "'..'", "'loop'", 
  "'over'", "'while'", "'collect'", "'minimize'", "'assert'", "'output'", 
  "'per_sample'", "'stage'", "'if'", "'else'", "'.'", "'**'", "'-'", "'+'", 
  "'*'", "'/'", "'//'", "'%'", "'@'", "'=='", "'!='", "'<'", "'<='", "'>'", 
  "'>='", "'not'", "'and'", "'or'", "'true'", "'false'"
};

std::vector<std::string> IpuLangParser::_symbolicNames = {
  "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", 
  "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", 
  "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", 
  "", "NAME", "FLOAT", "INT", "STRING", "COMMENT", "WS"
};

dfa::Vocabulary IpuLangParser::_vocabulary(_literalNames, _symbolicNames);

std::vector<std::string> IpuLangParser::_tokenNames;

IpuLangParser::Initializer::Initializer() {
	for (size_t i = 0; i < _symbolicNames.size(); ++i) {
		std::string name = _vocabulary.getLiteralName(i);
		if (name.empty()) {
			name = _vocabulary.getSymbolicName(i);
		}

		if (name.empty()) {
			_tokenNames.push_back("<INVALID>");
		} else {
      _tokenNames.push_back(name);
    }
	}

  _serializedATN = {
    0x3, 0x608b, 0xa72a, 0x8133, 0xb9ed, 0x417c, 0x3be7, 0x7786, 0x5964, 
    0x3, 0x3e, 0x180, 0x4, 0x2, 0x9, 0x2, 0x4, 0x3, 0x9, 0x3, 0x4, 0x4, 
    0x9, 0x4, 0x4, 0x5, 0x9, 0x5, 0x4, 0x6, 0x9, 0x6, 0x4, 0x7, 0x9, 0x7, 
    0x4, 0x8, 0x9, 0x8, 0x4, 0x9, 0x9, 0x9, 0x4, 0xa, 0x9, 0xa, 0x4, 0xb, 
    0x9, 0xb, 0x4, 0xc, 0x9, 0xc, 0x4, 0xd, 0x9, 0xd, 0x4, 0xe, 0x9, 0xe, 
    0x4, 0xf, 0x9, 0xf, 0x4, 0x10, 0x9, 0x10, 0x4, 0x11, 0x9, 0x11, 0x4, 
    0x12, 0x9, 0x12, 0x4, 0x13, 0x9, 0x13, 0x4, 0x14, 0x9, 0x14, 0x4, 0x15, 
    0x9, 0x15, 0x4, 0x16, 0x9, 0x16, 0x3, 0x2, 0x3, 0x2, 0x5, 0x2, 0x2f, 
    0xa, 0x2, 0x7, 0x2, 0x31, 0xa, 0x2, 0xc, 0x2, 0xe, 0x2, 0x34, 0xb, 0x2, 
    0x3, 0x2, 0x3, 0x2, 0x3, 0x3, 0x3, 0x3, 0x3, 0x3, 0x3, 0x3, 0x3, 0x3, 
    0x5, 0x3, 0x3d, 0xa, 0x3, 0x3, 0x4, 0x3, 0x4, 0x3, 0x4, 0x3, 0x5, 0x3, 
    0x5, 0x3, 0x5, 0x3, 0x5, 0x3, 0x5, 0x3, 0x5, 0x7, 0x5, 0x48, 0xa, 0x5, 
    0xc, 0x5, 0xe, 0x5, 0x4b, 0xb, 0x5, 0x3, 0x6, 0x3, 0x6, 0x3, 0x6, 0x3, 
    0x6, 0x5, 0x6, 0x51, 0xa, 0x6, 0x3, 0x6, 0x3, 0x6, 0x3, 0x6, 0x3, 0x7, 
    0x3, 0x7, 0x3, 0x7, 0x3, 0x7, 0x5, 0x7, 0x5a, 0xa, 0x7, 0x3, 0x7, 0x3, 
    0x7, 0x3, 0x7, 0x3, 0x7, 0x5, 0x7, 0x60, 0xa, 0x7, 0x3, 0x8, 0x3, 0x8, 
    0x3, 0x8, 0x3, 0x8, 0x5, 0x8, 0x66, 0xa, 0x8, 0x3, 0x8, 0x3, 0x8, 0x3, 
    0x8, 0x3, 0x9, 0x3, 0x9, 0x3, 0x9, 0x7, 0x9, 0x6e, 0xa, 0x9, 0xc, 0x9, 
    0xe, 0x9, 0x71, 0xb, 0x9, 0x3, 0x9, 0x5, 0x9, 0x74, 0xa, 0x9, 0x3, 0xa, 
    0x3, 0xa, 0x3, 0xa, 0x5, 0xa, 0x79, 0xa, 0xa, 0x3, 0xa, 0x3, 0xa, 0x5, 
    0xa, 0x7d, 0xa, 0xa, 0x3, 0xb, 0x3, 0xb, 0x3, 0xb, 0x3, 0xb, 0x3, 0xb, 
    0x7, 0xb, 0x84, 0xa, 0xb, 0xc, 0xb, 0xe, 0xb, 0x87, 0xb, 0xb, 0x5, 0xb, 
    0x89, 0xa, 0xb, 0x3, 0xb, 0x5, 0xb, 0x8c, 0xa, 0xb, 0x3, 0xc, 0x3, 0xc, 
    0x5, 0xc, 0x90, 0xa, 0xc, 0x3, 0xd, 0x3, 0xd, 0x3, 0xd, 0x5, 0xd, 0x95, 
    0xa, 0xd, 0x7, 0xd, 0x97, 0xa, 0xd, 0xc, 0xd, 0xe, 0xd, 0x9a, 0xb, 0xd, 
    0x3, 0xd, 0x3, 0xd, 0x3, 0xe, 0x3, 0xe, 0x3, 0xe, 0x3, 0xe, 0x3, 0xe, 
    0x3, 0xe, 0x3, 0xe, 0x3, 0xe, 0x3, 0xe, 0x5, 0xe, 0xa7, 0xa, 0xe, 0x7, 
    0xe, 0xa9, 0xa, 0xe, 0xc, 0xe, 0xe, 0xe, 0xac, 0xb, 0xe, 0x3, 0xe, 0x3, 
    0xe, 0x3, 0xe, 0x3, 0xe, 0x3, 0xe, 0x3, 0xe, 0x3, 0xe, 0x5, 0xe, 0xb5, 
    0xa, 0xe, 0x3, 0xe, 0x3, 0xe, 0x7, 0xe, 0xb9, 0xa, 0xe, 0xc, 0xe, 0xe, 
    0xe, 0xbc, 0xb, 0xe, 0x3, 0xe, 0x3, 0xe, 0x3, 0xe, 0x3, 0xe, 0x3, 0xe, 
    0x3, 0xe, 0x3, 0xe, 0x3, 0xe, 0x3, 0xe, 0x3, 0xe, 0x3, 0xe, 0x3, 0xe, 
    0x3, 0xe, 0x3, 0xe, 0x3, 0xe, 0x3, 0xe, 0x7, 0xe, 0xce, 0xa, 0xe, 0xc, 
    0xe, 0xe, 0xe, 0xd1, 0xb, 0xe, 0x3, 0xe, 0x5, 0xe, 0xd4, 0xa, 0xe, 0x3, 
    0xe, 0x3, 0xe, 0x3, 0xe, 0x3, 0xe, 0x3, 0xe, 0x3, 0xe, 0x3, 0xe, 0x3, 
    0xe, 0x3, 0xe, 0x5, 0xe, 0xdf, 0xa, 0xe, 0x3, 0xe, 0x3, 0xe, 0x3, 0xe, 
    0x3, 0xe, 0x3, 0xe, 0x3, 0xe, 0x3, 0xe, 0x3, 0xe, 0x3, 0xe, 0x3, 0xe, 
    0x3, 0xe, 0x3, 0xe, 0x3, 0xe, 0x3, 0xe, 0x3, 0xe, 0x5, 0xe, 0xf0, 0xa, 
    0xe, 0x3, 0xe, 0x3, 0xe, 0x3, 0xe, 0x5, 0xe, 0xf5, 0xa, 0xe, 0x3, 0xe, 
    0x3, 0xe, 0x3, 0xe, 0x5, 0xe, 0xfa, 0xa, 0xe, 0x3, 0xf, 0x3, 0xf, 0x3, 
    0xf, 0x5, 0xf, 0xff, 0xa, 0xf, 0x3, 0x10, 0x3, 0x10, 0x3, 0x10, 0x3, 
    0x10, 0x3, 0x11, 0x3, 0x11, 0x3, 0x11, 0x3, 0x11, 0x3, 0x12, 0x3, 0x12, 
    0x3, 0x12, 0x3, 0x12, 0x3, 0x12, 0x3, 0x12, 0x5, 0x12, 0x10f, 0xa, 0x12, 
    0x5, 0x12, 0x111, 0xa, 0x12, 0x3, 0x13, 0x3, 0x13, 0x3, 0x13, 0x3, 0x13, 
    0x3, 0x13, 0x3, 0x13, 0x3, 0x13, 0x3, 0x13, 0x3, 0x13, 0x3, 0x13, 0x3, 
    0x13, 0x3, 0x13, 0x3, 0x13, 0x3, 0x13, 0x7, 0x13, 0x121, 0xa, 0x13, 
    0xc, 0x13, 0xe, 0x13, 0x124, 0xb, 0x13, 0x3, 0x13, 0x5, 0x13, 0x127, 
    0xa, 0x13, 0x5, 0x13, 0x129, 0xa, 0x13, 0x3, 0x13, 0x3, 0x13, 0x3, 0x13, 
    0x3, 0x13, 0x3, 0x13, 0x5, 0x13, 0x130, 0xa, 0x13, 0x3, 0x13, 0x3, 0x13, 
    0x3, 0x13, 0x3, 0x13, 0x3, 0x13, 0x3, 0x13, 0x3, 0x13, 0x3, 0x13, 0x3, 
    0x13, 0x3, 0x13, 0x3, 0x13, 0x3, 0x13, 0x3, 0x13, 0x3, 0x13, 0x3, 0x13, 
    0x3, 0x13, 0x3, 0x13, 0x3, 0x13, 0x3, 0x13, 0x3, 0x13, 0x3, 0x13, 0x5, 
    0x13, 0x147, 0xa, 0x13, 0x3, 0x13, 0x3, 0x13, 0x3, 0x13, 0x3, 0x13, 
    0x3, 0x13, 0x3, 0x13, 0x3, 0x13, 0x3, 0x13, 0x3, 0x13, 0x7, 0x13, 0x152, 
    0xa, 0x13, 0xc, 0x13, 0xe, 0x13, 0x155, 0xb, 0x13, 0x3, 0x13, 0x3, 0x13, 
    0x7, 0x13, 0x159, 0xa, 0x13, 0xc, 0x13, 0xe, 0x13, 0x15c, 0xb, 0x13, 
    0x3, 0x14, 0x3, 0x14, 0x3, 0x14, 0x7, 0x14, 0x161, 0xa, 0x14, 0xc, 0x14, 
    0xe, 0x14, 0x164, 0xb, 0x14, 0x3, 0x14, 0x5, 0x14, 0x167, 0xa, 0x14, 
    0x3, 0x15, 0x3, 0x15, 0x3, 0x15, 0x3, 0x15, 0x5, 0x15, 0x16d, 0xa, 0x15, 
    0x3, 0x16, 0x3, 0x16, 0x3, 0x16, 0x5, 0x16, 0x172, 0xa, 0x16, 0x3, 0x16, 
    0x3, 0x16, 0x5, 0x16, 0x176, 0xa, 0x16, 0x3, 0x16, 0x3, 0x16, 0x5, 0x16, 
    0x17a, 0xa, 0x16, 0x5, 0x16, 0x17c, 0xa, 0x16, 0x5, 0x16, 0x17e, 0xa, 
    0x16, 0x3, 0x16, 0x2, 0x3, 0x24, 0x17, 0x2, 0x4, 0x6, 0x8, 0xa, 0xc, 
    0xe, 0x10, 0x12, 0x14, 0x16, 0x18, 0x1a, 0x1c, 0x1e, 0x20, 0x22, 0x24, 
    0x26, 0x28, 0x2a, 0x2, 0x6, 0x3, 0x2, 0x27, 0x28, 0x3, 0x2, 0x37, 0x38, 
    0x3, 0x2, 0x29, 0x2d, 0x3, 0x2, 0x2e, 0x33, 0x2, 0x1b6, 0x2, 0x32, 0x3, 
    0x2, 0x2, 0x2, 0x4, 0x3c, 0x3, 0x2, 0x2, 0x2, 0x6, 0x3e, 0x3, 0x2, 0x2, 
    0x2, 0x8, 0x41, 0x3, 0x2, 0x2, 0x2, 0xa, 0x4c, 0x3, 0x2, 0x2, 0x2, 0xc, 
    0x55, 0x3, 0x2, 0x2, 0x2, 0xe, 0x61, 0x3, 0x2, 0x2, 0x2, 0x10, 0x6a, 
    0x3, 0x2, 0x2, 0x2, 0x12, 0x75, 0x3, 0x2, 0x2, 0x2, 0x14, 0x7e, 0x3, 
    0x2, 0x2, 0x2, 0x16, 0x8f, 0x3, 0x2, 0x2, 0x2, 0x18, 0x91, 0x3, 0x2, 
    0x2, 0x2, 0x1a, 0xf9, 0x3, 0x2, 0x2, 0x2, 0x1c, 0xfb, 0x3, 0x2, 0x2, 
    0x2, 0x1e, 0x100, 0x3, 0x2, 0x2, 0x2, 0x20, 0x104, 0x3, 0x2, 0x2, 0x2, 
    0x22, 0x108, 0x3, 0x2, 0x2, 0x2, 0x24, 0x12f, 0x3, 0x2, 0x2, 0x2, 0x26, 
    0x15d, 0x3, 0x2, 0x2, 0x2, 0x28, 0x16c, 0x3, 0x2, 0x2, 0x2, 0x2a, 0x17d, 
    0x3, 0x2, 0x2, 0x2, 0x2c, 0x2e, 0x5, 0x4, 0x3, 0x2, 0x2d, 0x2f, 0x7, 
    0x3, 0x2, 0x2, 0x2e, 0x2d, 0x3, 0x2, 0x2, 0x2, 0x2e, 0x2f, 0x3, 0x2, 
    0x2, 0x2, 0x2f, 0x31, 0x3, 0x2, 0x2, 0x2, 0x30, 0x2c, 0x3, 0x2, 0x2, 
    0x2, 0x31, 0x34, 0x3, 0x2, 0x2, 0x2, 0x32, 0x30, 0x3, 0x2, 0x2, 0x2, 
    0x32, 0x33, 0x3, 0x2, 0x2, 0x2, 0x33, 0x35, 0x3, 0x2, 0x2, 0x2, 0x34, 
    0x32, 0x3, 0x2, 0x2, 0x2, 0x35, 0x36, 0x7, 0x2, 0x2, 0x3, 0x36, 0x3, 
    0x3, 0x2, 0x2, 0x2, 0x37, 0x3d, 0x5, 0x6, 0x4, 0x2, 0x38, 0x3d, 0x5, 
    0x8, 0x5, 0x2, 0x39, 0x3d, 0x5, 0xa, 0x6, 0x2, 0x3a, 0x3d, 0x5, 0xc, 
    0x7, 0x2, 0x3b, 0x3d, 0x5, 0xe, 0x8, 0x2, 0x3c, 0x37, 0x3, 0x2, 0x2, 
    0x2, 0x3c, 0x38, 0x3, 0x2, 0x2, 0x2, 0x3c, 0x39, 0x3, 0x2, 0x2, 0x2, 
    0x3c, 0x3a, 0x3, 0x2, 0x2, 0x2, 0x3c, 0x3b, 0x3, 0x2, 0x2, 0x2, 0x3d, 
    0x5, 0x3, 0x2, 0x2, 0x2, 0x3e, 0x3f, 0x7, 0x4, 0x2, 0x2, 0x3f, 0x40, 
    0x7, 0x39, 0x2, 0x2, 0x40, 0x7, 0x3, 0x2, 0x2, 0x2, 0x41, 0x42, 0x7, 
    0x5, 0x2, 0x2, 0x42, 0x43, 0x7, 0x39, 0x2, 0x2, 0x43, 0x44, 0x7, 0x4, 
    0x2, 0x2, 0x44, 0x49, 0x7, 0x39, 0x2, 0x2, 0x45, 0x46, 0x7, 0x6, 0x2, 
    0x2, 0x46, 0x48, 0x7, 0x39, 0x2, 0x2, 0x47, 0x45, 0x3, 0x2, 0x2, 0x2, 
    0x48, 0x4b, 0x3, 0x2, 0x2, 0x2, 0x49, 0x47, 0x3, 0x2, 0x2, 0x2, 0x49, 
    0x4a, 0x3, 0x2, 0x2, 0x2, 0x4a, 0x9, 0x3, 0x2, 0x2, 0x2, 0x4b, 0x49, 
    0x3, 0x2, 0x2, 0x2, 0x4c, 0x4d, 0x7, 0x7, 0x2, 0x2, 0x4d, 0x4e, 0x7, 
    0x39, 0x2, 0x2, 0x4e, 0x50, 0x7, 0x8, 0x2, 0x2, 0x4f, 0x51, 0x5, 0x10, 
    0x9, 0x2, 0x50, 0x4f, 0x3, 0x2, 0x2, 0x2, 0x50, 0x51, 0x3, 0x2, 0x2, 
    0x2, 0x51, 0x52, 0x3, 0x2, 0x2, 0x2, 0x52, 0x53, 0x7, 0x9, 0x2, 0x2, 
    0x53, 0x54, 0x5, 0x18, 0xd, 0x2, 0x54, 0xb, 0x3, 0x2, 0x2, 0x2, 0x55, 
    0x56, 0x7, 0xa, 0x2, 0x2, 0x56, 0x57, 0x7, 0x39, 0x2, 0x2, 0x57, 0x59, 
    0x7, 0x8, 0x2, 0x2, 0x58, 0x5a, 0x5, 0x10, 0x9, 0x2, 0x59, 0x58, 0x3, 
    0x2, 0x2, 0x2, 0x59, 0x5a, 0x3, 0x2, 0x2, 0x2, 0x5a, 0x5b, 0x3, 0x2, 
    0x2, 0x2, 0x5b, 0x5f, 0x7, 0x9, 0x2, 0x2, 0x5c, 0x5d, 0x7, 0xb, 0x2, 
    0x2, 0x5d, 0x60, 0x5, 0x24, 0x13, 0x2, 0x5e, 0x60, 0x5, 0x18, 0xd, 0x2, 
    0x5f, 0x5c, 0x3, 0x2, 0x2, 0x2, 0x5f, 0x5e, 0x3, 0x2, 0x2, 0x2, 0x60, 
    0xd, 0x3, 0x2, 0x2, 0x2, 0x61, 0x62, 0x7, 0xc, 0x2, 0x2, 0x62, 0x63, 
    0x7, 0x39, 0x2, 0x2, 0x63, 0x65, 0x7, 0x8, 0x2, 0x2, 0x64, 0x66, 0x5, 
    0x10, 0x9, 0x2, 0x65, 0x64, 0x3, 0x2, 0x2, 0x2, 0x65, 0x66, 0x3, 0x2, 
    0x2, 0x2, 0x66, 0x67, 0x3, 0x2, 0x2, 0x2, 0x67, 0x68, 0x7, 0x9, 0x2, 
    0x2, 0x68, 0x69, 0x5, 0x18, 0xd, 0x2, 0x69, 0xf, 0x3, 0x2, 0x2, 0x2, 
    0x6a, 0x6f, 0x5, 0x12, 0xa, 0x2, 0x6b, 0x6c, 0x7, 0x6, 0x2, 0x2, 0x6c, 
    0x6e, 0x5, 0x12, 0xa, 0x2, 0x6d, 0x6b, 0x3, 0x2, 0x2, 0x2, 0x6e, 0x71, 
    0x3, 0x2, 0x2, 0x2, 0x6f, 0x6d, 0x3, 0x2, 0x2, 0x2, 0x6f, 0x70, 0x3, 
    0x2, 0x2, 0x2, 0x70, 0x73, 0x3, 0x2, 0x2, 0x2, 0x71, 0x6f, 0x3, 0x2, 
    0x2, 0x2, 0x72, 0x74, 0x7, 0x6, 0x2, 0x2, 0x73, 0x72, 0x3, 0x2, 0x2, 
    0x2, 0x73, 0x74, 0x3, 0x2, 0x2, 0x2, 0x74, 0x11, 0x3, 0x2, 0x2, 0x2, 
    0x75, 0x78, 0x7, 0x39, 0x2, 0x2, 0x76, 0x77, 0x7, 0xd, 0x2, 0x2, 0x77, 
    0x79, 0x5, 0x14, 0xb, 0x2, 0x78, 0x76, 0x3, 0x2, 0x2, 0x2, 0x78, 0x79, 
    0x3, 0x2, 0x2, 0x2, 0x79, 0x7c, 0x3, 0x2, 0x2, 0x2, 0x7a, 0x7b, 0x7, 
    0xb, 0x2, 0x2, 0x7b, 0x7d, 0x5, 0x24, 0x13, 0x2, 0x7c, 0x7a, 0x3, 0x2, 
    0x2, 0x2, 0x7c, 0x7d, 0x3, 0x2, 0x2, 0x2, 0x7d, 0x13, 0x3, 0x2, 0x2, 
    0x2, 0x7e, 0x8b, 0x7, 0x39, 0x2, 0x2, 0x7f, 0x88, 0x7, 0xe, 0x2, 0x2, 
    0x80, 0x85, 0x5, 0x16, 0xc, 0x2, 0x81, 0x82, 0x7, 0x6, 0x2, 0x2, 0x82, 
    0x84, 0x5, 0x16, 0xc, 0x2, 0x83, 0x81, 0x3, 0x2, 0x2, 0x2, 0x84, 0x87, 
    0x3, 0x2, 0x2, 0x2, 0x85, 0x83, 0x3, 0x2, 0x2, 0x2, 0x85, 0x86, 0x3, 
    0x2, 0x2, 0x2, 0x86, 0x89, 0x3, 0x2, 0x2, 0x2, 0x87, 0x85, 0x3, 0x2, 
    0x2, 0x2, 0x88, 0x80, 0x3, 0x2, 0x2, 0x2, 0x88, 0x89, 0x3, 0x2, 0x2, 
    0x2, 0x89, 0x8a, 0x3, 0x2, 0x2, 0x2, 0x8a, 0x8c, 0x7, 0xf, 0x2, 0x2, 
    0x8b, 0x7f, 0x3, 0x2, 0x2, 0x2, 0x8b, 0x8c, 0x3, 0x2, 0x2, 0x2, 0x8c, 
    0x15, 0x3, 0x2, 0x2, 0x2, 0x8d, 0x90, 0x7, 0x10, 0x2, 0x2, 0x8e, 0x90, 
    0x5, 0x24, 0x13, 0x2, 0x8f, 0x8d, 0x3, 0x2, 0x2, 0x2, 0x8f, 0x8e, 0x3, 
    0x2, 0x2, 0x2, 0x90, 0x17, 0x3, 0x2, 0x2, 0x2, 0x91, 0x98, 0x7, 0x11, 
    0x2, 0x2, 0x92, 0x94, 0x5, 0x1a, 0xe, 0x2, 0x93, 0x95, 0x7, 0x3, 0x2, 
    0x2, 0x94, 0x93, 0x3, 0x2, 0x2, 0x2, 0x94, 0x95, 0x3, 0x2, 0x2, 0x2, 
    0x95, 0x97, 0x3, 0x2, 0x2, 0x2, 0x96, 0x92, 0x3, 0x2, 0x2, 0x2, 0x97, 
    0x9a, 0x3, 0x2, 0x2, 0x2, 0x98, 0x96, 0x3, 0x2, 0x2, 0x2, 0x98, 0x99, 
    0x3, 0x2, 0x2, 0x2, 0x99, 0x9b, 0x3, 0x2, 0x2, 0x2, 0x9a, 0x98, 0x3, 
    0x2, 0x2, 0x2, 0x9b, 0x9c, 0x7, 0x12, 0x2, 0x2, 0x9c, 0x19, 0x3, 0x2, 
    0x2, 0x2, 0x9d, 0x9e, 0x7, 0x13, 0x2, 0x2, 0x9e, 0x9f, 0x7, 0x39, 0x2, 
    0x2, 0x9f, 0xa0, 0x7, 0xd, 0x2, 0x2, 0xa0, 0xfa, 0x5, 0x14, 0xb, 0x2, 
    0xa1, 0xfa, 0x5, 0x20, 0x11, 0x2, 0xa2, 0xa3, 0x7, 0x14, 0x2, 0x2, 0xa3, 
    0xaa, 0x7, 0x11, 0x2, 0x2, 0xa4, 0xa6, 0x5, 0x20, 0x11, 0x2, 0xa5, 0xa7, 
    0x7, 0x3, 0x2, 0x2, 0xa6, 0xa5, 0x3, 0x2, 0x2, 0x2, 0xa6, 0xa7, 0x3, 
    0x2, 0x2, 0x2, 0xa7, 0xa9, 0x3, 0x2, 0x2, 0x2, 0xa8, 0xa4, 0x3, 0x2, 
    0x2, 0x2, 0xa9, 0xac, 0x3, 0x2, 0x2, 0x2, 0xaa, 0xa8, 0x3, 0x2, 0x2, 
    0x2, 0xaa, 0xab, 0x3, 0x2, 0x2, 0x2, 0xab, 0xad, 0x3, 0x2, 0x2, 0x2, 
    0xac, 0xaa, 0x3, 0x2, 0x2, 0x2, 0xad, 0xfa, 0x7, 0x12, 0x2, 0x2, 0xae, 
    0xaf, 0x7, 0x15, 0x2, 0x2, 0xaf, 0xb0, 0x7, 0x39, 0x2, 0x2, 0xb0, 0xb1, 
    0x7, 0xd, 0x2, 0x2, 0xb1, 0xb4, 0x5, 0x14, 0xb, 0x2, 0xb2, 0xb3, 0x7, 
    0xb, 0x2, 0x2, 0xb3, 0xb5, 0x5, 0x24, 0x13, 0x2, 0xb4, 0xb2, 0x3, 0x2, 
    0x2, 0x2, 0xb4, 0xb5, 0x3, 0x2, 0x2, 0x2, 0xb5, 0xba, 0x3, 0x2, 0x2, 
    0x2, 0xb6, 0xb7, 0x7, 0x6, 0x2, 0x2, 0xb7, 0xb9, 0x5, 0x1e, 0x10, 0x2, 
    0xb8, 0xb6, 0x3, 0x2, 0x2, 0x2, 0xb9, 0xbc, 0x3, 0x2, 0x2, 0x2, 0xba, 
    0xb8, 0x3, 0x2, 0x2, 0x2, 0xba, 0xbb, 0x3, 0x2, 0x2, 0x2, 0xbb, 0xfa, 
    0x3, 0x2, 0x2, 0x2, 0xbc, 0xba, 0x3, 0x2, 0x2, 0x2, 0xbd, 0xbe, 0x7, 
    0x16, 0x2, 0x2, 0xbe, 0xfa, 0x5, 0x24, 0x13, 0x2, 0xbf, 0xfa, 0x5, 0x22, 
    0x12, 0x2, 0xc0, 0xc1, 0x7, 0x17, 0x2, 0x2, 0xc1, 0xc2, 0x7, 0x39, 0x2, 
    0x2, 0xc2, 0xc3, 0x7, 0x18, 0x2, 0x2, 0xc3, 0xc4, 0x5, 0x24, 0x13, 0x2, 
    0xc4, 0xc5, 0x7, 0x19, 0x2, 0x2, 0xc5, 0xc6, 0x5, 0x24, 0x13, 0x2, 0xc6, 
    0xc7, 0x5, 0x18, 0xd, 0x2, 0xc7, 0xfa, 0x3, 0x2, 0x2, 0x2, 0xc8, 0xc9, 
    0x7, 0x1a, 0x2, 0x2, 0xc9, 0xca, 0x7, 0x8, 0x2, 0x2, 0xca, 0xcf, 0x5, 
    0x1c, 0xf, 0x2, 0xcb, 0xcc, 0x7, 0x6, 0x2, 0x2, 0xcc, 0xce, 0x5, 0x1c, 
    0xf, 0x2, 0xcd, 0xcb, 0x3, 0x2, 0x2, 0x2, 0xce, 0xd1, 0x3, 0x2, 0x2, 
    0x2, 0xcf, 0xcd, 0x3, 0x2, 0x2, 0x2, 0xcf, 0xd0, 0x3, 0x2, 0x2, 0x2, 
    0xd0, 0xd3, 0x3, 0x2, 0x2, 0x2, 0xd1, 0xcf, 0x3, 0x2, 0x2, 0x2, 0xd2, 
    0xd4, 0x7, 0x6, 0x2, 0x2, 0xd3, 0xd2, 0x3, 0x2, 0x2, 0x2, 0xd3, 0xd4, 
    0x3, 0x2, 0x2, 0x2, 0xd4, 0xd5, 0x3, 0x2, 0x2, 0x2, 0xd5, 0xd6, 0x7, 
    0x9, 0x2, 0x2, 0xd6, 0xd7, 0x7, 0x1b, 0x2, 0x2, 0xd7, 0xd8, 0x7, 0x39, 
    0x2, 0x2, 0xd8, 0xd9, 0x7, 0x18, 0x2, 0x2, 0xd9, 0xda, 0x5, 0x24, 0x13, 
    0x2, 0xda, 0xdb, 0x7, 0x19, 0x2, 0x2, 0xdb, 0xde, 0x5, 0x24, 0x13, 0x2, 
    0xdc, 0xdd, 0x7, 0x1c, 0x2, 0x2, 0xdd, 0xdf, 0x5, 0x24, 0x13, 0x2, 0xde, 
    0xdc, 0x3, 0x2, 0x2, 0x2, 0xde, 0xdf, 0x3, 0x2, 0x2, 0x2, 0xdf, 0xe0, 
    0x3, 0x2, 0x2, 0x2, 0xe0, 0xe1, 0x5, 0x18, 0xd, 0x2, 0xe1, 0xfa, 0x3, 
    0x2, 0x2, 0x2, 0xe2, 0xe3, 0x7, 0x1d, 0x2, 0x2, 0xe3, 0xe4, 0x7, 0x39, 
    0x2, 0x2, 0xe4, 0xe5, 0x7, 0xb, 0x2, 0x2, 0xe5, 0xfa, 0x5, 0x24, 0x13, 
    0x2, 0xe6, 0xe7, 0x7, 0x1e, 0x2, 0x2, 0xe7, 0xfa, 0x5, 0x24, 0x13, 0x2, 
    0xe8, 0xe9, 0x7, 0x1f, 0x2, 0x2, 0xe9, 0xea, 0x5, 0x24, 0x13, 0x2, 0xea, 
    0xeb, 0x7, 0x6, 0x2, 0x2, 0xeb, 0xec, 0x5, 0x24, 0x13, 0x2, 0xec, 0xfa, 
    0x3, 0x2, 0x2, 0x2, 0xed, 0xef, 0x7, 0x20, 0x2, 0x2, 0xee, 0xf0, 0x7, 
    0x21, 0x2, 0x2, 0xef, 0xee, 0x3, 0x2, 0x2, 0x2, 0xef, 0xf0, 0x3, 0x2, 
    0x2, 0x2, 0xf0, 0xf1, 0x3, 0x2, 0x2, 0x2, 0xf1, 0xf4, 0x7, 0x39, 0x2, 
    0x2, 0xf2, 0xf3, 0x7, 0xb, 0x2, 0x2, 0xf3, 0xf5, 0x5, 0x24, 0x13, 0x2, 
    0xf4, 0xf2, 0x3, 0x2, 0x2, 0x2, 0xf4, 0xf5, 0x3, 0x2, 0x2, 0x2, 0xf5, 
    0xfa, 0x3, 0x2, 0x2, 0x2, 0xf6, 0xf7, 0x7, 0x39, 0x2, 0x2, 0xf7, 0xf8, 
    0x7, 0xb, 0x2, 0x2, 0xf8, 0xfa, 0x5, 0x24, 0x13, 0x2, 0xf9, 0x9d, 0x3, 
    0x2, 0x2, 0x2, 0xf9, 0xa1, 0x3, 0x2, 0x2, 0x2, 0xf9, 0xa2, 0x3, 0x2, 
    0x2, 0x2, 0xf9, 0xae, 0x3, 0x2, 0x2, 0x2, 0xf9, 0xbd, 0x3, 0x2, 0x2, 
    0x2, 0xf9, 0xbf, 0x3, 0x2, 0x2, 0x2, 0xf9, 0xc0, 0x3, 0x2, 0x2, 0x2, 
    0xf9, 0xc8, 0x3, 0x2, 0x2, 0x2, 0xf9, 0xe2, 0x3, 0x2, 0x2, 0x2, 0xf9, 
    0xe6, 0x3, 0x2, 0x2, 0x2, 0xf9, 0xe8, 0x3, 0x2, 0x2, 0x2, 0xf9, 0xed, 
    0x3, 0x2, 0x2, 0x2, 0xf9, 0xf6, 0x3, 0x2, 0x2, 0x2, 0xfa, 0x1b, 0x3, 
    0x2, 0x2, 0x2, 0xfb, 0xfe, 0x7, 0x39, 0x2, 0x2, 0xfc, 0xfd, 0x7, 0xb, 
    0x2, 0x2, 0xfd, 0xff, 0x5, 0x24, 0x13, 0x2, 0xfe, 0xfc, 0x3, 0x2, 0x2, 
    0x2, 0xfe, 0xff, 0x3, 0x2, 0x2, 0x2, 0xff, 0x1d, 0x3, 0x2, 0x2, 0x2, 
    0x100, 0x101, 0x7, 0x39, 0x2, 0x2, 0x101, 0x102, 0x7, 0xb, 0x2, 0x2, 
    0x102, 0x103, 0x5, 0x24, 0x13, 0x2, 0x103, 0x1f, 0x3, 0x2, 0x2, 0x2, 
    0x104, 0x105, 0x7, 0x22, 0x2, 0x2, 0x105, 0x106, 0x7, 0x39, 0x2, 0x2, 
    0x106, 0x107, 0x5, 0x18, 0xd, 0x2, 0x107, 0x21, 0x3, 0x2, 0x2, 0x2, 
    0x108, 0x109, 0x7, 0x23, 0x2, 0x2, 0x109, 0x10a, 0x5, 0x24, 0x13, 0x2, 
    0x10a, 0x110, 0x5, 0x18, 0xd, 0x2, 0x10b, 0x10e, 0x7, 0x24, 0x2, 0x2, 
    0x10c, 0x10f, 0x5, 0x22, 0x12, 0x2, 0x10d, 0x10f, 0x5, 0x18, 0xd, 0x2, 
    0x10e, 0x10c, 0x3, 0x2, 0x2, 0x2, 0x10e, 0x10d, 0x3, 0x2, 0x2, 0x2, 
    0x10f, 0x111, 0x3, 0x2, 0x2, 0x2, 0x110, 0x10b, 0x3, 0x2, 0x2, 0x2, 
    0x110, 0x111, 0x3, 0x2, 0x2, 0x2, 0x111, 0x23, 0x3, 0x2, 0x2, 0x2, 0x112, 
    0x113, 0x8, 0x13, 0x1, 0x2, 0x113, 0x114, 0x9, 0x2, 0x2, 0x2, 0x114, 
    0x130, 0x5, 0x24, 0x13, 0x10, 0x115, 0x116, 0x7, 0x34, 0x2, 0x2, 0x116, 
    0x130, 0x5, 0x24, 0x13, 0xc, 0x117, 0x130, 0x7, 0x3b, 0x2, 0x2, 0x118, 
    0x130, 0x7, 0x3a, 0x2, 0x2, 0x119, 0x130, 0x9, 0x3, 0x2, 0x2, 0x11a, 
    0x130, 0x7, 0x3c, 0x2, 0x2, 0x11b, 0x130, 0x7, 0x39, 0x2, 0x2, 0x11c, 
    0x128, 0x7, 0xe, 0x2, 0x2, 0x11d, 0x122, 0x5, 0x24, 0x13, 0x2, 0x11e, 
    0x11f, 0x7, 0x6, 0x2, 0x2, 0x11f, 0x121, 0x5, 0x24, 0x13, 0x2, 0x120, 
    0x11e, 0x3, 0x2, 0x2, 0x2, 0x121, 0x124, 0x3, 0x2, 0x2, 0x2, 0x122, 
    0x120, 0x3, 0x2, 0x2, 0x2, 0x122, 0x123, 0x3, 0x2, 0x2, 0x2, 0x123, 
    0x126, 0x3, 0x2, 0x2, 0x2, 0x124, 0x122, 0x3, 0x2, 0x2, 0x2, 0x125, 
    0x127, 0x7, 0x6, 0x2, 0x2, 0x126, 0x125, 0x3, 0x2, 0x2, 0x2, 0x126, 
    0x127, 0x3, 0x2, 0x2, 0x2, 0x127, 0x129, 0x3, 0x2, 0x2, 0x2, 0x128, 
    0x11d, 0x3, 0x2, 0x2, 0x2, 0x128, 0x129, 0x3, 0x2, 0x2, 0x2, 0x129, 
    0x12a, 0x3, 0x2, 0x2, 0x2, 0x12a, 0x130, 0x7, 0xf, 0x2, 0x2, 0x12b, 
    0x12c, 0x7, 0x8, 0x2, 0x2, 0x12c, 0x12d, 0x5, 0x24, 0x13, 0x2, 0x12d, 
    0x12e, 0x7, 0x9, 0x2, 0x2, 0x12e, 0x130, 0x3, 0x2, 0x2, 0x2, 0x12f, 
    0x112, 0x3, 0x2, 0x2, 0x2, 0x12f, 0x115, 0x3, 0x2, 0x2, 0x2, 0x12f, 
    0x117, 0x3, 0x2, 0x2, 0x2, 0x12f, 0x118, 0x3, 0x2, 0x2, 0x2, 0x12f, 
    0x119, 0x3, 0x2, 0x2, 0x2, 0x12f, 0x11a, 0x3, 0x2, 0x2, 0x2, 0x12f, 
    0x11b, 0x3, 0x2, 0x2, 0x2, 0x12f, 0x11c, 0x3, 0x2, 0x2, 0x2, 0x12f, 
    0x12b, 0x3, 0x2, 0x2, 0x2, 0x130, 0x15a, 0x3, 0x2, 0x2, 0x2, 0x131, 
    0x132, 0xc, 0x11, 0x2, 0x2, 0x132, 0x133, 0x7, 0x26, 0x2, 0x2, 0x133, 
    0x159, 0x5, 0x24, 0x13, 0x11, 0x134, 0x135, 0xc, 0xf, 0x2, 0x2, 0x135, 
    0x136, 0x9, 0x4, 0x2, 0x2, 0x136, 0x159, 0x5, 0x24, 0x13, 0x10, 0x137, 
    0x138, 0xc, 0xe, 0x2, 0x2, 0x138, 0x139, 0x9, 0x2, 0x2, 0x2, 0x139, 
    0x159, 0x5, 0x24, 0x13, 0xf, 0x13a, 0x13b, 0xc, 0xd, 0x2, 0x2, 0x13b, 
    0x13c, 0x9, 0x5, 0x2, 0x2, 0x13c, 0x159, 0x5, 0x24, 0x13, 0xe, 0x13d, 
    0x13e, 0xc, 0xb, 0x2, 0x2, 0x13e, 0x13f, 0x7, 0x35, 0x2, 0x2, 0x13f, 
    0x159, 0x5, 0x24, 0x13, 0xc, 0x140, 0x141, 0xc, 0xa, 0x2, 0x2, 0x141, 
    0x142, 0x7, 0x36, 0x2, 0x2, 0x142, 0x159, 0x5, 0x24, 0x13, 0xb, 0x143, 
    0x144, 0xc, 0x14, 0x2, 0x2, 0x144, 0x146, 0x7, 0x8, 0x2, 0x2, 0x145, 
    0x147, 0x5, 0x26, 0x14, 0x2, 0x146, 0x145, 0x3, 0x2, 0x2, 0x2, 0x146, 
    0x147, 0x3, 0x2, 0x2, 0x2, 0x147, 0x148, 0x3, 0x2, 0x2, 0x2, 0x148, 
    0x159, 0x7, 0x9, 0x2, 0x2, 0x149, 0x14a, 0xc, 0x13, 0x2, 0x2, 0x14a, 
    0x14b, 0x7, 0x25, 0x2, 0x2, 0x14b, 0x159, 0x7, 0x39, 0x2, 0x2, 0x14c, 
    0x14d, 0xc, 0x12, 0x2, 0x2, 0x14d, 0x14e, 0x7, 0xe, 0x2, 0x2, 0x14e, 
    0x153, 0x5, 0x2a, 0x16, 0x2, 0x14f, 0x150, 0x7, 0x6, 0x2, 0x2, 0x150, 
    0x152, 0x5, 0x2a, 0x16, 0x2, 0x151, 0x14f, 0x3, 0x2, 0x2, 0x2, 0x152, 
    0x155, 0x3, 0x2, 0x2, 0x2, 0x153, 0x151, 0x3, 0x2, 0x2, 0x2, 0x153, 
    0x154, 0x3, 0x2, 0x2, 0x2, 0x154, 0x156, 0x3, 0x2, 0x2, 0x2, 0x155, 
    0x153, 0x3, 0x2, 0x2, 0x2, 0x156, 0x157, 0x7, 0xf, 0x2, 0x2, 0x157, 
    0x159, 0x3, 0x2, 0x2, 0x2, 0x158, 0x131, 0x3, 0x2, 0x2, 0x2, 0x158, 
    0x134, 0x3, 0x2, 0x2, 0x2, 0x158, 0x137, 0x3, 0x2, 0x2, 0x2, 0x158, 
    0x13a, 0x3, 0x2, 0x2, 0x2, 0x158, 0x13d, 0x3, 0x2, 0x2, 0x2, 0x158, 
    0x140, 0x3, 0x2, 0x2, 0x2, 0x158, 0x143, 0x3, 0x2, 0x2, 0x2, 0x158, 
    0x149, 0x3, 0x2, 0x2, 0x2, 0x158, 0x14c, 0x3, 0x2, 0x2, 0x2, 0x159, 
    0x15c, 0x3, 0x2, 0x2, 0x2, 0x15a, 0x158, 0x3, 0x2, 0x2, 0x2, 0x15a, 
    0x15b, 0x3, 0x2, 0x2, 0x2, 0x15b, 0x25, 0x3, 0x2, 0x2, 0x2, 0x15c, 0x15a, 
    0x3, 0x2, 0x2, 0x2, 0x15d, 0x162, 0x5, 0x28, 0x15, 0x2, 0x15e, 0x15f, 
    0x7, 0x6, 0x2, 0x2, 0x15f, 0x161, 0x5, 0x28, 0x15, 0x2, 0x160, 0x15e, 
    0x3, 0x2, 0x2, 0x2, 0x161, 0x164, 0x3, 0x2, 0x2, 0x2, 0x162, 0x160, 
    0x3, 0x2, 0x2, 0x2, 0x162, 0x163, 0x3, 0x2, 0x2, 0x2, 0x163, 0x166, 
    0x3, 0x2, 0x2, 0x2, 0x164, 0x162, 0x3, 0x2, 0x2, 0x2, 0x165, 0x167, 
    0x7, 0x6, 0x2, 0x2, 0x166, 0x165, 0x3, 0x2, 0x2, 0x2, 0x166, 0x167, 
    0x3, 0x2, 0x2, 0x2, 0x167, 0x27, 0x3, 0x2, 0x2, 0x2, 0x168, 0x169, 0x7, 
    0x39, 0x2, 0x2, 0x169, 0x16a, 0x7, 0xb, 0x2, 0x2, 0x16a, 0x16d, 0x5, 
    0x24, 0x13, 0x2, 0x16b, 0x16d, 0x5, 0x24, 0x13, 0x2, 0x16c, 0x168, 0x3, 
    0x2, 0x2, 0x2, 0x16c, 0x16b, 0x3, 0x2, 0x2, 0x2, 0x16d, 0x29, 0x3, 0x2, 
    0x2, 0x2, 0x16e, 0x17e, 0x7, 0x10, 0x2, 0x2, 0x16f, 0x17e, 0x5, 0x24, 
    0x13, 0x2, 0x170, 0x172, 0x5, 0x24, 0x13, 0x2, 0x171, 0x170, 0x3, 0x2, 
    0x2, 0x2, 0x171, 0x172, 0x3, 0x2, 0x2, 0x2, 0x172, 0x173, 0x3, 0x2, 
    0x2, 0x2, 0x173, 0x175, 0x7, 0xd, 0x2, 0x2, 0x174, 0x176, 0x5, 0x24, 
    0x13, 0x2, 0x175, 0x174, 0x3, 0x2, 0x2, 0x2, 0x175, 0x176, 0x3, 0x2, 
    0x2, 0x2, 0x176, 0x17b, 0x3, 0x2, 0x2, 0x2, 0x177, 0x179, 0x7, 0xd, 
    0x2, 0x2, 0x178, 0x17a, 0x5, 0x24, 0x13, 0x2, 0x179, 0x178, 0x3, 0x2, 
    0x2, 0x2, 0x179, 0x17a, 0x3, 0x2, 0x2, 0x2, 0x17a, 0x17c, 0x3, 0x2, 
    0x2, 0x2, 0x17b, 0x177, 0x3, 0x2, 0x2, 0x2, 0x17b, 0x17c, 0x3, 0x2, 
    0x2, 0x2, 0x17c, 0x17e, 0x3, 0x2, 0x2, 0x2, 0x17d, 0x16e, 0x3, 0x2, 
    0x2, 0x2, 0x17d, 0x16f, 0x3, 0x2, 0x2, 0x2, 0x17d, 0x171, 0x3, 0x2, 
    0x2, 0x2, 0x17e, 0x2b, 0x3, 0x2, 0x2, 0x2, 0x31, 0x2e, 0x32, 0x3c, 0x49, 
    0x50, 0x59, 0x5f, 0x65, 0x6f, 0x73, 0x78, 0x7c, 0x85, 0x88, 0x8b, 0x8f, 
    0x94, 0x98, 0xa6, 0xaa, 0xb4, 0xba, 0xcf, 0xd3, 0xde, 0xef, 0xf4, 0xf9, 
    0xfe, 0x10e, 0x110, 0x122, 0x126, 0x128, 0x12f, 0x146, 0x153, 0x158, 
    0x15a, 0x162, 0x166, 0x16c, 0x171, 0x175, 0x179, 0x17b, 0x17d, 
  };

  atn::ATNDeserializer deserializer;
  _atn = deserializer.deserialize(_serializedATN);

  size_t count = _atn.getNumberOfDecisions();
  _decisionToDFA.reserve(count);
  for (size_t i = 0; i < count; i++) { 
    _decisionToDFA.emplace_back(_atn.getDecisionState(i), i);
  }
}

IpuLangParser::Initializer IpuLangParser::_init;
