//+------------------------------------------------------------------+
//| MtxBridgeCommands.mqh: the commands of bridge protocol v1 on MT5. |
//| Included by MtxBridge.mq5. Each Do* reads the request's fields    |
//| (Arg/ArgL/ArgD), appends its results to the answer (Put*) and     |
//| returns "" or "<error>:<message>"; an error answer guarantees that |
//| no trade function was called. Fields and meanings are those of    |
//| docs/terminal-bridge.md, "Commands"; nothing here decides anything |
//| a trade server or the connector decides.                          |
//+------------------------------------------------------------------+

#define MAX_LIST_ITEMS 500
#define MAX_FIND_TAGS  50

//--- arguments --------------------------------------------------------
bool IsDigits(string v, int from, int to)
  {
   if(to <= from) return false;
   for(int i = from; i < to; i++)
     {
      ushort c = StringGetCharacter(v, i);
      if(c < '0' || c > '9') return false;
     }
   return true;
  }
bool IsIntegerText(string v)
  {
   int from = StringGetCharacter(v, 0) == '-' ? 1 : 0;
   return StringLen(v) - from <= 19 && IsDigits(v, from, StringLen(v));
  }
bool IsDecimalText(string v)
  {
   int from = StringGetCharacter(v, 0) == '-' ? 1 : 0;
   int dot = StringFind(v, ".");
   if(dot < 0) return StringLen(v) - from <= 40 && IsDigits(v, from, StringLen(v));
   return dot - from <= 40 && StringLen(v) - dot - 1 <= 40 && IsDigits(v, from, dot) && IsDigits(v, dot + 1, StringLen(v));
  }

// Checks the request against a spec such as "symbol:t!,volume:d,type:i": each argument's kind (i integer,
// d decimal, t text), "!" when required. The same table as the connector's commands.ts; checked again here
// because a trade function must never be handed a value the EA could not read.
string ArgsProblem(string spec)
  {
   string entries[];
   int n = StringSplit(spec, ',', entries);
   for(int i = 0; i < n; i++)
     {
      string entry = entries[i];
      bool required = StringSubstr(entry, StringLen(entry) - 1) == "!";
      if(required) entry = StringSubstr(entry, 0, StringLen(entry) - 1);
      int colon = StringFind(entry, ":");
      string key = StringSubstr(entry, 0, colon), kind = StringSubstr(entry, colon + 1);
      if(!Has(key))
        {
         if(required) return "bad_request:" + Arg("cmd") + " needs " + key;
         continue;
        }
      if(kind == "i" && !IsIntegerText(Arg(key))) return "bad_request:" + key + " is not an integer";
      if(kind == "d" && !IsDecimalText(Arg(key))) return "bad_request:" + key + " is not a decimal";
     }
   return "";
  }

// A symbol's price digits; 8 for a symbol the terminal no longer knows (old history) or none (balance deals).
int DigitsOf(string symbol)
  {
   long digits = 0;
   if(symbol == "" || !SymbolInfoInteger(symbol, SYMBOL_DIGITS, digits)) return 8;
   return (int)digits;
  }

// Lists are written after their items, so the count is the number of items actually written even when an
// item vanished between listing and reading it (a position closed meanwhile).
string g_list_head;
void BeginList() { g_list_head = g_out; g_out = ""; }
void EndList(string name, int count, bool more)
  {
   string items = g_out;
   g_out = g_list_head;
   PutL(name, count);
   PutL("more", more ? 1 : 0);
   g_out += items;
  }
string ItemPrefix(string name, int index) { return name + "." + IntegerToString(index) + "."; }

//--- account and symbol -----------------------------------------------
void DoAccount()
  {
   double margin = AccountInfoDouble(ACCOUNT_MARGIN);
   long mode = AccountInfoInteger(ACCOUNT_MARGIN_MODE);
   bool allowed = TerminalInfoInteger(TERMINAL_TRADE_ALLOWED) != 0 && MQLInfoInteger(MQL_TRADE_ALLOWED) != 0
                  && AccountInfoInteger(ACCOUNT_TRADE_ALLOWED) != 0 && AccountInfoInteger(ACCOUNT_TRADE_EXPERT) != 0;
   PutL("login", AccountInfoInteger(ACCOUNT_LOGIN));
   Put("server", AccountInfoString(ACCOUNT_SERVER));
   Put("company", AccountInfoString(ACCOUNT_COMPANY));
   Put("currency", AccountInfoString(ACCOUNT_CURRENCY));
   PutL("leverage", AccountInfoInteger(ACCOUNT_LEVERAGE));
   PutD("balance", AccountInfoDouble(ACCOUNT_BALANCE));
   PutD("equity", AccountInfoDouble(ACCOUNT_EQUITY));
   PutD("margin", margin);
   PutD("free_margin", AccountInfoDouble(ACCOUNT_MARGIN_FREE));
   PutD("margin_level", margin > 0 ? AccountInfoDouble(ACCOUNT_MARGIN_LEVEL) : 0);
   PutD("profit", AccountInfoDouble(ACCOUNT_PROFIT));
   if(mode == ACCOUNT_MARGIN_MODE_RETAIL_HEDGING) Put("margin_mode", "hedging");
   else if(mode == ACCOUNT_MARGIN_MODE_EXCHANGE) Put("margin_mode", "exchange");
   else Put("margin_mode", "netting");
   PutL("trade_allowed", allowed ? 1 : 0);
   PutL("server_time", (long)TimeTradeServer());
  }

string DoSymbol()
  {
   string problem = ArgsProblem("symbol:t!");
   if(problem != "") return problem;
   string symbol = Arg("symbol");
   if(!SymbolSelect(symbol, true)) return "bad_request:unknown symbol " + symbol;
   int digits = DigitsOf(symbol);
   Put("symbol", symbol);
   PutL("digits", digits);
   PutD("point", SymbolInfoDouble(symbol, SYMBOL_POINT));
   PutD("tick_size", SymbolInfoDouble(symbol, SYMBOL_TRADE_TICK_SIZE));
   PutD("tick_value", SymbolInfoDouble(symbol, SYMBOL_TRADE_TICK_VALUE));
   PutD("contract_size", SymbolInfoDouble(symbol, SYMBOL_TRADE_CONTRACT_SIZE));
   PutD("volume_min", SymbolInfoDouble(symbol, SYMBOL_VOLUME_MIN));
   PutD("volume_max", SymbolInfoDouble(symbol, SYMBOL_VOLUME_MAX));
   PutD("volume_step", SymbolInfoDouble(symbol, SYMBOL_VOLUME_STEP));
   PutL("trade_mode", SymbolInfoInteger(symbol, SYMBOL_TRADE_MODE));
   PutL("stops_level", SymbolInfoInteger(symbol, SYMBOL_TRADE_STOPS_LEVEL));
   PutL("freeze_level", SymbolInfoInteger(symbol, SYMBOL_TRADE_FREEZE_LEVEL));
   PutP("bid", SymbolInfoDouble(symbol, SYMBOL_BID), digits);
   PutP("ask", SymbolInfoDouble(symbol, SYMBOL_ASK), digits);
   PutL("time", SymbolInfoInteger(symbol, SYMBOL_TIME));
   PutL("filling_mode", SymbolInfoInteger(symbol, SYMBOL_FILLING_MODE));
   return "";
  }

//--- positions and orders ---------------------------------------------
// The selected position (PositionGetTicket / PositionSelectByTicket), its fields under `prefix`.
void PutPosition(string prefix)
  {
   string symbol = PositionGetString(POSITION_SYMBOL);
   int digits = DigitsOf(symbol);
   PutL(prefix + "ticket", PositionGetInteger(POSITION_TICKET));
   Put(prefix + "symbol", symbol);
   PutL(prefix + "type", PositionGetInteger(POSITION_TYPE));
   PutD(prefix + "volume", PositionGetDouble(POSITION_VOLUME));
   PutP(prefix + "price_open", PositionGetDouble(POSITION_PRICE_OPEN), digits);
   PutP(prefix + "price_current", PositionGetDouble(POSITION_PRICE_CURRENT), digits);
   PutP(prefix + "sl", PositionGetDouble(POSITION_SL), digits);
   PutP(prefix + "tp", PositionGetDouble(POSITION_TP), digits);
   PutD(prefix + "profit", PositionGetDouble(POSITION_PROFIT));
   PutD(prefix + "swap", PositionGetDouble(POSITION_SWAP));
   PutL(prefix + "magic", PositionGetInteger(POSITION_MAGIC));
   Put(prefix + "comment", PositionGetString(POSITION_COMMENT));
   PutL(prefix + "time", PositionGetInteger(POSITION_TIME));
   PutL(prefix + "identifier", PositionGetInteger(POSITION_IDENTIFIER));
  }

// The selected current order (OrderGetTicket / OrderSelect), its fields under `prefix`.
void PutOrder(string prefix)
  {
   string symbol = OrderGetString(ORDER_SYMBOL);
   int digits = DigitsOf(symbol);
   PutL(prefix + "ticket", OrderGetInteger(ORDER_TICKET));
   Put(prefix + "symbol", symbol);
   PutL(prefix + "type", OrderGetInteger(ORDER_TYPE));
   PutD(prefix + "volume", OrderGetDouble(ORDER_VOLUME_CURRENT));
   PutP(prefix + "price_open", OrderGetDouble(ORDER_PRICE_OPEN), digits);
   PutP(prefix + "price_current", OrderGetDouble(ORDER_PRICE_CURRENT), digits);
   PutP(prefix + "sl", OrderGetDouble(ORDER_SL), digits);
   PutP(prefix + "tp", OrderGetDouble(ORDER_TP), digits);
   PutL(prefix + "magic", OrderGetInteger(ORDER_MAGIC));
   Put(prefix + "comment", OrderGetString(ORDER_COMMENT));
   PutL(prefix + "time_setup", OrderGetInteger(ORDER_TIME_SETUP));
   PutL(prefix + "expiration", OrderGetInteger(ORDER_TIME_EXPIRATION));
   PutP(prefix + "price_stoplimit", OrderGetDouble(ORDER_PRICE_STOPLIMIT), digits);
   PutD(prefix + "volume_initial", OrderGetDouble(ORDER_VOLUME_INITIAL));
   PutL(prefix + "type_time", OrderGetInteger(ORDER_TYPE_TIME));
  }

bool IsPendingType(long type) { return type >= ORDER_TYPE_BUY_LIMIT && type <= ORDER_TYPE_SELL_STOP_LIMIT; }

// The first 500 by ticket, as the protocol says, so a cut list is the same cut on every call.
string DoPositions()
  {
   string problem = ArgsProblem("symbol:t");
   if(problem != "") return problem;
   string filter = Arg("symbol");
   ulong tickets[];
   int found = 0;
   for(int i = PositionsTotal() - 1; i >= 0; i--)
     {
      ulong ticket = PositionGetTicket(i);
      if(ticket == 0 || (filter != "" && PositionGetString(POSITION_SYMBOL) != filter)) continue;
      ArrayResize(tickets, found + 1, 64);
      tickets[found++] = ticket;
     }
   ArraySort(tickets);
   BeginList();
   int written = 0;
   for(int k = 0; k < found && written < MAX_LIST_ITEMS; k++)
      if(PositionSelectByTicket(tickets[k])) PutPosition(ItemPrefix("positions", written++));
   EndList("positions", written, found > MAX_LIST_ITEMS);
   return "";
  }

string DoOrders()
  {
   string problem = ArgsProblem("symbol:t");
   if(problem != "") return problem;
   string filter = Arg("symbol");
   ulong tickets[];
   int found = 0;
   for(int i = OrdersTotal() - 1; i >= 0; i--)
     {
      ulong ticket = OrderGetTicket(i);
      // The current orders also hold market orders still being filled; the protocol lists pending ones only.
      if(ticket == 0 || !IsPendingType(OrderGetInteger(ORDER_TYPE))) continue;
      if(filter != "" && OrderGetString(ORDER_SYMBOL) != filter) continue;
      ArrayResize(tickets, found + 1, 64);
      tickets[found++] = ticket;
     }
   ArraySort(tickets);
   BeginList();
   int written = 0;
   for(int k = 0; k < found && written < MAX_LIST_ITEMS; k++)
      if(OrderSelect(tickets[k])) PutOrder(ItemPrefix("orders", written++));
   EndList("orders", written, found > MAX_LIST_ITEMS);
   return "";
  }

string DoTicket()
  {
   string problem = ArgsProblem("ticket:i!");
   if(problem != "") return problem;
   ulong ticket = (ulong)ArgL("ticket");
   if(PositionSelectByTicket(ticket)) { Put("kind", "position"); PutPosition(""); return ""; }
   if(OrderSelect(ticket)) { Put("kind", "order"); PutOrder(""); return ""; }
   return "not_found:ticket " + Arg("ticket") + " is neither an open position nor a pending order";
  }

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

//--- check ------------------------------------------------------------
string DoCheck()
  {
   string problem = ArgsProblem("symbol:t!,type:i!,volume:d!,price:d");
   if(problem != "") return problem;
   string symbol = Arg("symbol");
   long type = ArgL("type");
   if(type < ORDER_TYPE_BUY || type > ORDER_TYPE_SELL_STOP_LIMIT) return "bad_request:type must be 0-7";
   if(!SymbolSelect(symbol, true)) return "bad_request:unknown symbol " + symbol;
   bool buy = type % 2 == 0; // the buy types are the even ones: BUY, BUY_LIMIT, BUY_STOP, BUY_STOP_LIMIT
   double volume = ArgD("volume");
   double price = ArgD("price", SymbolInfoDouble(symbol, buy ? SYMBOL_ASK : SYMBOL_BID));
   double margin = 0;
   ResetLastError();
   if(!OrderCalcMargin(buy ? ORDER_TYPE_BUY : ORDER_TYPE_SELL, symbol, volume, price, margin))
      return "internal:OrderCalcMargin error " + IntegerToString(GetLastError());
   MqlTradeRequest request;
   ZeroMemory(request);
   request.action = IsPendingType(type) ? TRADE_ACTION_PENDING : TRADE_ACTION_DEAL;
   request.type = (ENUM_ORDER_TYPE)type;
   request.symbol = symbol;
   request.volume = volume;
   request.price = price;
   request.type_filling = FillingFor(symbol);
   MqlTradeCheckResult check;
   ZeroMemory(check);
   OrderCheck(request, check); // false when the order would be refused; the retcode says why
   PutD("margin", margin);
   PutL("retcode", check.retcode);
   PutD("balance", check.balance);
   PutD("equity", check.equity);
   PutD("profit", check.profit);
   PutD("margin_free", check.margin_free);
   PutD("margin_level", check.margin_level);
   Put("comment", check.comment);
   return "";
  }

//--- history ----------------------------------------------------------
void PutDeal(string prefix, ulong ticket)
  {
   string symbol = HistoryDealGetString(ticket, DEAL_SYMBOL);
   PutL(prefix + "ticket", (long)ticket);
   PutL(prefix + "order", HistoryDealGetInteger(ticket, DEAL_ORDER));
   PutL(prefix + "position", HistoryDealGetInteger(ticket, DEAL_POSITION_ID));
   PutL(prefix + "time", HistoryDealGetInteger(ticket, DEAL_TIME));
   PutL(prefix + "time_msc", HistoryDealGetInteger(ticket, DEAL_TIME_MSC));
   PutL(prefix + "type", HistoryDealGetInteger(ticket, DEAL_TYPE));
   PutL(prefix + "entry", HistoryDealGetInteger(ticket, DEAL_ENTRY));
   Put(prefix + "symbol", symbol);
   PutD(prefix + "volume", HistoryDealGetDouble(ticket, DEAL_VOLUME));
   PutP(prefix + "price", HistoryDealGetDouble(ticket, DEAL_PRICE), DigitsOf(symbol));
   PutD(prefix + "profit", HistoryDealGetDouble(ticket, DEAL_PROFIT));
   PutD(prefix + "swap", HistoryDealGetDouble(ticket, DEAL_SWAP));
   PutD(prefix + "commission", HistoryDealGetDouble(ticket, DEAL_COMMISSION));
   PutD(prefix + "fee", HistoryDealGetDouble(ticket, DEAL_FEE));
   PutL(prefix + "magic", HistoryDealGetInteger(ticket, DEAL_MAGIC));
   Put(prefix + "comment", HistoryDealGetString(ticket, DEAL_COMMENT));
   PutL(prefix + "reason", HistoryDealGetInteger(ticket, DEAL_REASON));
  }

void PutHistoryOrder(string prefix, ulong ticket)
  {
   string symbol = HistoryOrderGetString(ticket, ORDER_SYMBOL);
   int digits = DigitsOf(symbol);
   PutL(prefix + "ticket", (long)ticket);
   PutL(prefix + "type", HistoryOrderGetInteger(ticket, ORDER_TYPE));
   PutL(prefix + "state", HistoryOrderGetInteger(ticket, ORDER_STATE));
   Put(prefix + "symbol", symbol);
   PutD(prefix + "volume_initial", HistoryOrderGetDouble(ticket, ORDER_VOLUME_INITIAL));
   PutD(prefix + "volume_current", HistoryOrderGetDouble(ticket, ORDER_VOLUME_CURRENT));
   PutP(prefix + "price_open", HistoryOrderGetDouble(ticket, ORDER_PRICE_OPEN), digits);
   PutP(prefix + "sl", HistoryOrderGetDouble(ticket, ORDER_SL), digits);
   PutP(prefix + "tp", HistoryOrderGetDouble(ticket, ORDER_TP), digits);
   PutL(prefix + "time_setup", HistoryOrderGetInteger(ticket, ORDER_TIME_SETUP));
   PutL(prefix + "time_done", HistoryOrderGetInteger(ticket, ORDER_TIME_DONE));
   PutL(prefix + "position", HistoryOrderGetInteger(ticket, ORDER_POSITION_ID));
   PutL(prefix + "magic", HistoryOrderGetInteger(ticket, ORDER_MAGIC));
   Put(prefix + "comment", HistoryOrderGetString(ticket, ORDER_COMMENT));
   PutL(prefix + "reason", HistoryOrderGetInteger(ticket, ORDER_REASON));
  }

// One page of deals or orders between from and to. The connector pages with a fixed `to` in the past, so
// HistorySelect returns the same items in the same order on every page.
string DoHistory()
  {
   string problem = ArgsProblem("kind:t!,from:i!,to:i!,offset:i,limit:i");
   if(problem != "") return problem;
   string kind = Arg("kind");
   if(kind != "deals" && kind != "orders") return "bad_request:kind must be deals or orders";
   long offset = ArgL("offset", 0), limit = ArgL("limit", MAX_LIST_ITEMS);
   if(offset < 0) return "bad_request:offset must not be negative";
   if(limit < 1 || limit > MAX_LIST_ITEMS) return "bad_request:limit must be 1-500";
   ResetLastError();
   if(!HistorySelect((datetime)ArgL("from"), (datetime)ArgL("to")))
      return "internal:HistorySelect error " + IntegerToString(GetLastError());
   int total = kind == "deals" ? HistoryDealsTotal() : HistoryOrdersTotal();
   int start = (int)MathMin(offset, (long)total);
   int count = (int)MathMin((long)(total - start), limit);
   PutL(kind, count);
   PutL("total", total);
   PutL("more", start + count < total ? 1 : 0);
   for(int k = 0; k < count; k++)
     {
      if(kind == "deals") PutDeal(ItemPrefix(kind, k), HistoryDealGetTicket(start + k));
      else PutHistoryOrder(ItemPrefix(kind, k), HistoryOrderGetTicket(start + k));
     }
   return "";
  }

//--- find -------------------------------------------------------------
bool IsTag(string tag)
  {
   if(StringLen(tag) != 11 || StringGetCharacter(tag, 0) != '~') return false;
   for(int i = 1; i < 11; i++)
     {
      ushort c = StringGetCharacter(tag, i);
      if(!((c >= 'a' && c <= 'z') || (c >= '2' && c <= '7'))) return false;
     }
   return true;
  }

// The first of the tags the comment contains, or "".
string TagIn(string comment, string &tags[])
  {
   for(int i = 0; i < ArraySize(tags); i++)
      if(StringFind(comment, tags[i]) >= 0) return tags[i];
   return "";
  }

int  g_matches = 0;
bool g_matches_cut = false;

// Writes one match; answers its key prefix for further fields, or "" once the list holds 500 items.
string PutMatch(string tag, string where, ulong ticket, string symbol, long type, double volume, double price,
                long time, long magic, string comment)
  {
   if(g_matches >= MAX_LIST_ITEMS) { g_matches_cut = true; return ""; }
   string p = ItemPrefix("matches", g_matches++);
   Put(p + "tag", tag);
   Put(p + "where", where);
   PutL(p + "ticket", (long)ticket);
   Put(p + "symbol", symbol);
   PutL(p + "type", type);
   PutD(p + "volume", volume);
   PutP(p + "price", price, DigitsOf(symbol));
   PutL(p + "time", time);
   PutL(p + "magic", magic);
   Put(p + "comment", comment);
   return p;
  }

// Which positions, orders, deals and history orders carry one of the request's client-id tags: how the
// connector learns the outcome of a request whose answer was lost (docs/terminal-bridge.md, "Client id in
// the comment"). Orders answer their initial volume, the volume the request asked for.
string DoFind()
  {
   string problem = ArgsProblem("tags:t!,from:i!");
   if(problem != "") return problem;
   string tags[];
   int n = StringSplit(Arg("tags"), ',', tags);
   if(n < 1 || n > MAX_FIND_TAGS) return "bad_request:tags must hold 1-50 tags";
   for(int t = 0; t < n; t++)
      if(!IsTag(tags[t])) return "bad_request:" + tags[t] + " is not ~ and 10 characters a-z 2-7";
   // Nothing lies in the future, so a day past the server's clock costs nothing and keeps a deal done this
   // second inside the range even when TimeTradeServer lags the server.
   ResetLastError();
   if(!HistorySelect((datetime)ArgL("from"), TimeTradeServer() + 86400))
      return "internal:HistorySelect error " + IntegerToString(GetLastError());
   g_matches = 0;
   g_matches_cut = false;
   BeginList();
   for(int i = PositionsTotal() - 1; i >= 0 && !g_matches_cut; i--)
     {
      ulong ticket = PositionGetTicket(i);
      string comment = PositionGetString(POSITION_COMMENT), tag = TagIn(comment, tags);
      if(ticket == 0 || tag == "") continue;
      PutMatch(tag, "position", ticket, PositionGetString(POSITION_SYMBOL), PositionGetInteger(POSITION_TYPE),
               PositionGetDouble(POSITION_VOLUME), PositionGetDouble(POSITION_PRICE_OPEN),
               PositionGetInteger(POSITION_TIME), PositionGetInteger(POSITION_MAGIC), comment);
     }
   // Every current order, market orders still being filled included: each is evidence the request arrived.
   for(int i = OrdersTotal() - 1; i >= 0 && !g_matches_cut; i--)
     {
      ulong ticket = OrderGetTicket(i);
      string comment = OrderGetString(ORDER_COMMENT), tag = TagIn(comment, tags);
      if(ticket == 0 || tag == "") continue;
      PutMatch(tag, "order", ticket, OrderGetString(ORDER_SYMBOL), OrderGetInteger(ORDER_TYPE),
               OrderGetDouble(ORDER_VOLUME_INITIAL), OrderGetDouble(ORDER_PRICE_OPEN),
               OrderGetInteger(ORDER_TIME_SETUP), OrderGetInteger(ORDER_MAGIC), comment);
     }
   for(int i = 0; i < HistoryDealsTotal() && !g_matches_cut; i++)
     {
      ulong ticket = HistoryDealGetTicket(i);
      string comment = HistoryDealGetString(ticket, DEAL_COMMENT), tag = TagIn(comment, tags);
      if(ticket == 0 || tag == "") continue;
      string p = PutMatch(tag, "deal", ticket, HistoryDealGetString(ticket, DEAL_SYMBOL), HistoryDealGetInteger(ticket, DEAL_TYPE),
                          HistoryDealGetDouble(ticket, DEAL_VOLUME), HistoryDealGetDouble(ticket, DEAL_PRICE),
                          HistoryDealGetInteger(ticket, DEAL_TIME), HistoryDealGetInteger(ticket, DEAL_MAGIC), comment);
      if(p == "") break;
      PutL(p + "order", HistoryDealGetInteger(ticket, DEAL_ORDER));
      PutL(p + "position", HistoryDealGetInteger(ticket, DEAL_POSITION_ID));
      PutL(p + "entry", HistoryDealGetInteger(ticket, DEAL_ENTRY));
     }
   for(int i = 0; i < HistoryOrdersTotal() && !g_matches_cut; i++)
     {
      ulong ticket = HistoryOrderGetTicket(i);
      string comment = HistoryOrderGetString(ticket, ORDER_COMMENT), tag = TagIn(comment, tags);
      if(ticket == 0 || tag == "") continue;
      PutMatch(tag, "history_order", ticket, HistoryOrderGetString(ticket, ORDER_SYMBOL), HistoryOrderGetInteger(ticket, ORDER_TYPE),
               HistoryOrderGetDouble(ticket, ORDER_VOLUME_INITIAL), HistoryOrderGetDouble(ticket, ORDER_PRICE_OPEN),
               HistoryOrderGetInteger(ticket, ORDER_TIME_SETUP), HistoryOrderGetInteger(ticket, ORDER_MAGIC), comment);
     }
   EndList("matches", g_matches, g_matches_cut);
   return "";
  }
//+------------------------------------------------------------------+
