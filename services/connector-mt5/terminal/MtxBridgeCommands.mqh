//+------------------------------------------------------------------+
//| MtxBridgeCommands.mqh: the commands of bridge protocol v1 on MT5.|
//| Included by MtxBridge.mq5. Each Do* reads the request (Arg, ArgL,|
//| ArgD), appends its results to the answer (Put*) and returns "" or|
//| "<error>:<message>"; an error answer guarantees that no trade    |
//| function was called. This file: argument checks, account, symbol,|
//| positions, orders, ticket, check; MtxBridgeTrades.mqh the trade  |
//| commands; MtxBridgeHistory.mqh history and find. Fields and      |
//| meanings: docs/terminal-bridge.md, "Commands".                   |
//+------------------------------------------------------------------+

// Items per list in an answer and tags per find (docs/terminal-bridge.md, "Bounds").
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

// Every symbol the trade server lists (Market Watch or not) whose name starts with `prefix`, compared
// case-insensitively, in the server's order; the first 500, `more=1` when cut.
string DoSymbols()
  {
   string problem = ArgsProblem("prefix:t");
   if(problem != "") return problem;
   string prefix = Arg("prefix");
   StringToLower(prefix);
   int total = SymbolsTotal(false);
   BeginList();
   int written = 0;
   bool more = false;
   for(int i = 0; i < total; i++)
     {
      string name = SymbolName(i, false);
      string lower = name;
      StringToLower(lower);
      if(prefix != "" && StringFind(lower, prefix) != 0) continue;
      if(written >= MAX_LIST_ITEMS) { more = true; break; }
      Put(ItemPrefix("symbols", written++) + "name", name);
     }
   EndList("symbols", written, more);
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

//+------------------------------------------------------------------+
