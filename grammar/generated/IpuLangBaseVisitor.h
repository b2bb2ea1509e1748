
// Generated from IpuLang.g4 by ANTLR 4.7.2

#pragma once


#include "antlr4-runtime.h"
#include "IpuLangVisitor.h"


namespace iputrain::grammar {

/**
 * This class provides an empty implementation of IpuLangVisitor, which can be
 * extended to create a visitor which only needs to handle a subset of the available methods.
 */
class  IpuLangBaseVisitor : public IpuLangVisitor {
public:

  virtual antlrcpp::Any visitFile(IpuLangParser::FileContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitTopItem(IpuLangParser::TopItemContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitImportDecl(IpuLangParser::ImportDeclContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitFromImportDecl(IpuLangParser::FromImportDeclContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitModelDecl(IpuLangParser::ModelDeclContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitDefDecl(IpuLangParser::DefDeclContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitLayerDecl(IpuLangParser::LayerDeclContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitParamList(IpuLangParser::ParamListContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitParamDecl(IpuLangParser::ParamDeclContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitTypeExpr(IpuLangParser::TypeExprContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitDim(IpuLangParser::DimContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitBlock(IpuLangParser::BlockContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitInputStmt(IpuLangParser::InputStmtContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitStageStmt(IpuLangParser::StageStmtContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitParallelStmt(IpuLangParser::ParallelStmtContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitParamStmt(IpuLangParser::ParamStmtContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitReturnStmt(IpuLangParser::ReturnStmtContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitIfStmtAlt(IpuLangParser::IfStmtAltContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitForStmt(IpuLangParser::ForStmtContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitLoopStmt(IpuLangParser::LoopStmtContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitCollectStmt(IpuLangParser::CollectStmtContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitMinimizeStmt(IpuLangParser::MinimizeStmtContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitAssertStmt(IpuLangParser::AssertStmtContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitOutputStmt(IpuLangParser::OutputStmtContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitAssignStmt(IpuLangParser::AssignStmtContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitLoopVar(IpuLangParser::LoopVarContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitParamOption(IpuLangParser::ParamOptionContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitStageDecl(IpuLangParser::StageDeclContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitIfStmt(IpuLangParser::IfStmtContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitIntExpr(IpuLangParser::IntExprContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitOrExpr(IpuLangParser::OrExprContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitNameExpr(IpuLangParser::NameExprContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitParenExpr(IpuLangParser::ParenExprContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitStringExpr(IpuLangParser::StringExprContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitIndexExpr(IpuLangParser::IndexExprContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitFloatExpr(IpuLangParser::FloatExprContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitUnaryExpr(IpuLangParser::UnaryExprContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitNotExpr(IpuLangParser::NotExprContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitAddExpr(IpuLangParser::AddExprContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitMulExpr(IpuLangParser::MulExprContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitAttrExpr(IpuLangParser::AttrExprContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitBoolExpr(IpuLangParser::BoolExprContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitPowExpr(IpuLangParser::PowExprContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitCallExpr(IpuLangParser::CallExprContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitListExpr(IpuLangParser::ListExprContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitCompareExpr(IpuLangParser::CompareExprContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitAndExpr(IpuLangParser::AndExprContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitArgList(IpuLangParser::ArgListContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitArg(IpuLangParser::ArgContext *ctx) override {
    return visitChildren(ctx);
  }

  virtual antlrcpp::Any visitSubscript(IpuLangParser::SubscriptContext *ctx) override {
    return visitChildren(ctx);
  }


};

}  // namespace iputrain::grammar
