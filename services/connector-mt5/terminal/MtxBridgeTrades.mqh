//+------------------------------------------------------------------+
//| MtxBridgeTrades.mqh: send, close, delete and modify on MT5.      |
//| Each builds one MqlTradeRequest and calls OrderSend exactly once;|
//| every check that can refuse the request comes before that call,  |
//| so an error answer means no trade function ran. Included by      |
//| MtxBridge.mq5; uses the helpers of MtxBridgeCommands.mqh.        |
//+------------------------------------------------------------------+

//--- trade commands ---------------------------------------------------
// The first filling mode the symbol allows, in the order FOK, IOC, RETURN. SYMBOL_FILLING_MODE holds flags
// for FOK and IOC only; RETURN needs no flag (it is refused under market execution, where FOK or IOC is set).
ENUM_ORDER_TYPE_FILLING FillingFor(string symbol)
  {
   long flags = SymbolInfoInteger(symbol, SYMBOL_FILLING_MODE);
   if((flags & SYMBOL_FILLING_FOK) != 0) return ORDER_FILLING_FOK;
   if((flags & SYMBOL_FILLING_IOC) != 0) return ORDER_FILLING_IOC;
   return ORDER_FILLING_RETURN;
  }

// OrderSend exactly once, and MqlTradeResult as the answer. OrderSend's false (a request the terminal's own
// check refused) is still status=ok: the trade function was called, and retcode says why it failed.
void SendAndAnswer(MqlTradeRequest &request)
  {
   MqlTradeResult result;
   ZeroMemory(result);
   ResetLastError();
   bool sent = OrderSend(request, result);
   int error = GetLastError();
   int digits = DigitsOf(request.symbol);
   PutL("retcode", result.retcode);
   PutL("deal", (long)result.deal);
   PutL("order", (long)result.order);
   PutD("volume", result.volume);
   PutP("price", result.price, digits);
   PutP("bid", result.bid, digits);
   PutP("ask", result.ask, digits);
   Put("comment", result.comment);
   PutL("request_id", result.request_id);
   PutL("retcode_external", result.retcode_external);
   if(!sent) Put("message", "OrderSend returned false, error " + IntegerToString(error));
  }

string DoSend()
  {
   string problem = ArgsProblem("action:i!,type:i,symbol:t,volume:d,price:d,stoplimit:d,sl:d,tp:d,deviation:i," +
                                "type_filling:i,type_time:i,expiration:i,comment:t,magic:i,order:i,position:i,position_by:i");
   if(problem != "") return problem;
   MqlTradeRequest request;
   ZeroMemory(request);
   request.action = (ENUM_TRADE_REQUEST_ACTIONS)ArgL("action");
   request.type = (ENUM_ORDER_TYPE)ArgL("type");
   request.symbol = Arg("symbol");
   request.volume = ArgD("volume");
   request.price = ArgD("price");
   request.stoplimit = ArgD("stoplimit");
   request.sl = ArgD("sl");
   request.tp = ArgD("tp");
   request.deviation = (ulong)ArgL("deviation");
   request.type_time = (ENUM_ORDER_TYPE_TIME)ArgL("type_time");
   request.expiration = (datetime)ArgL("expiration");
   request.comment = Arg("comment");
   request.magic = (ulong)ArgL("magic");
   request.order = (ulong)ArgL("order");
   request.position = (ulong)ArgL("position");
   request.position_by = (ulong)ArgL("position_by");
   // A symbol outside Market Watch has no prices in the terminal; selecting it is not a trade function.
   if(request.symbol != "" && !SymbolSelect(request.symbol, true)) return "bad_request:unknown symbol " + request.symbol;
   bool opens = request.action == TRADE_ACTION_DEAL || request.action == TRADE_ACTION_PENDING;
   if(Has("type_filling")) request.type_filling = (ENUM_ORDER_TYPE_FILLING)ArgL("type_filling");
   else if(opens) request.type_filling = FillingFor(request.symbol);
   SendAndAnswer(request);
   return "";
  }

string DoClose()
  {
   string problem = ArgsProblem("ticket:i!,volume:d,price:d,deviation:i,type_filling:i,comment:t");
   if(problem != "") return problem;
   ulong ticket = (ulong)ArgL("ticket");
   if(!PositionSelectByTicket(ticket))
     {
      if(OrderSelect(ticket)) return "bad_request:ticket " + Arg("ticket") + " is a pending order, which delete removes";
      return "not_found:ticket " + Arg("ticket") + " is neither an open position nor a pending order";
     }
   string symbol = PositionGetString(POSITION_SYMBOL);
   bool buy = PositionGetInteger(POSITION_TYPE) == POSITION_TYPE_BUY;
   MqlTradeRequest request;
   ZeroMemory(request);
   request.action = TRADE_ACTION_DEAL;
   request.position = ticket;
   request.symbol = symbol;
   request.magic = (ulong)PositionGetInteger(POSITION_MAGIC);
   request.type = buy ? ORDER_TYPE_SELL : ORDER_TYPE_BUY;
   request.volume = ArgD("volume") > 0 ? ArgD("volume") : PositionGetDouble(POSITION_VOLUME);
   // A long position closes at the bid, a short one at the ask.
   request.price = ArgD("price") > 0 ? ArgD("price") : SymbolInfoDouble(symbol, buy ? SYMBOL_BID : SYMBOL_ASK);
   request.deviation = (ulong)ArgL("deviation");
   request.type_filling = Has("type_filling") ? (ENUM_ORDER_TYPE_FILLING)ArgL("type_filling") : FillingFor(symbol);
   request.comment = Arg("comment");
   SendAndAnswer(request);
   return "";
  }

string DoDelete()
  {
   string problem = ArgsProblem("ticket:i!");
   if(problem != "") return problem;
   ulong ticket = (ulong)ArgL("ticket");
   if(!OrderSelect(ticket))
     {
      if(PositionSelectByTicket(ticket)) return "bad_request:ticket " + Arg("ticket") + " is an open position, which close closes";
      return "not_found:ticket " + Arg("ticket") + " is neither an open position nor a pending order";
     }
   MqlTradeRequest request;
   ZeroMemory(request);
   request.action = TRADE_ACTION_REMOVE;
   request.order = ticket;
   request.symbol = OrderGetString(ORDER_SYMBOL); // not needed by the server; gives the answer its price digits
   SendAndAnswer(request);
   return "";
  }

// An absent argument keeps the current value, so the request always carries the full set the server expects.
string DoModify()
  {
   string problem = ArgsProblem("ticket:i!,sl:d,tp:d,price:d,stoplimit:d,type_time:i,expiration:i");
   if(problem != "") return problem;
   ulong ticket = (ulong)ArgL("ticket");
   MqlTradeRequest request;
   ZeroMemory(request);
   if(PositionSelectByTicket(ticket))
     {
      request.action = TRADE_ACTION_SLTP;
      request.position = ticket;
      request.symbol = PositionGetString(POSITION_SYMBOL);
      request.magic = (ulong)PositionGetInteger(POSITION_MAGIC);
      request.sl = ArgD("sl", PositionGetDouble(POSITION_SL));
      request.tp = ArgD("tp", PositionGetDouble(POSITION_TP));
     }
   else if(OrderSelect(ticket))
     {
      request.action = TRADE_ACTION_MODIFY;
      request.order = ticket;
      request.symbol = OrderGetString(ORDER_SYMBOL);
      request.price = ArgD("price", OrderGetDouble(ORDER_PRICE_OPEN));
      request.sl = ArgD("sl", OrderGetDouble(ORDER_SL));
      request.tp = ArgD("tp", OrderGetDouble(ORDER_TP));
      request.stoplimit = ArgD("stoplimit", OrderGetDouble(ORDER_PRICE_STOPLIMIT));
      request.type_time = (ENUM_ORDER_TYPE_TIME)ArgL("type_time", OrderGetInteger(ORDER_TYPE_TIME));
      request.expiration = (datetime)ArgL("expiration", OrderGetInteger(ORDER_TIME_EXPIRATION));
     }
   else return "not_found:ticket " + Arg("ticket") + " is neither an open position nor a pending order";
   SendAndAnswer(request);
   return "";
  }

//+------------------------------------------------------------------+
