//+------------------------------------------------------------------+
//| MtxBridgeCommands.mqh: the commands of bridge protocol v1 on MT4.|
//| Included by MtxBridge.mq4. Each Do* reads the request (Arg, ArgL,|
//| ArgD), appends its results to the answer (Put*) and returns "" or|
//| "<error>:<message>"; an error answer guarantees that no trade    |
//| function was called. Trade answers carry MT4's own error number; |
//| the connector maps it to an MT5 retcode, the EA does not. History|
//| and find are in MtxBridgeHistory.mqh. Fields and meanings:       |
//| docs/terminal-bridge.md, "Commands".                             |
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

// Checks the request against a spec such as "symbol:t!,volume:d!,op:i!": each argument's kind (i integer,
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

// A symbol's price digits. MarketInfo answers 0 both for a symbol the terminal does not know (old history,
// balance records) and for one quoted without decimals; 8 decimals write either exactly.
int DigitsOf(string symbol)
  {
   if(symbol == "") return 8;
   int digits = (int)MarketInfo(symbol, MODE_DIGITS);
   return digits > 0 ? digits : 8;
  }

// The selected order is still open (OrderSelect by ticket finds closed orders too).
bool SelectOpen(int ticket) { return OrderSelect(ticket, SELECT_BY_TICKET) && OrderCloseTime() == 0; }
bool IsMarket(int type)     { return type == OP_BUY || type == OP_SELL; }
bool IsPending(int type)    { return type >= OP_BUYLIMIT && type <= OP_SELLSTOP; }

string NotFound() { return "not_found:ticket " + Arg("ticket") + " is neither an open position nor a pending order"; }
string ItemPrefix(string name, int index) { return name + "." + IntegerToString(index) + "."; }

//--- account and symbol -----------------------------------------------
void DoAccount()
  {
   double margin = AccountMargin();
   PutL("login", AccountNumber());
   Put("server", AccountServer());
   Put("company", AccountCompany());
   Put("currency", AccountCurrency());
   PutL("leverage", AccountLeverage());
   PutD("balance", AccountBalance());
   PutD("equity", AccountEquity());
   PutD("margin", margin);
   PutD("free_margin", AccountFreeMargin());
   PutD("margin_level", margin > 0 ? AccountEquity() / margin * 100 : 0);
   PutD("profit", AccountProfit());
   Put("margin_mode", "hedging");
   PutL("trade_allowed", IsTradeAllowed() && IsConnected() ? 1 : 0);
   PutL("server_time", (long)TimeCurrent());
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
   PutD("point", MarketInfo(symbol, MODE_POINT));
   PutD("tick_size", MarketInfo(symbol, MODE_TICKSIZE));
   PutD("tick_value", MarketInfo(symbol, MODE_TICKVALUE));
   PutD("contract_size", MarketInfo(symbol, MODE_LOTSIZE));
   PutD("volume_min", MarketInfo(symbol, MODE_MINLOT));
   PutD("volume_max", MarketInfo(symbol, MODE_MAXLOT));
   PutD("volume_step", MarketInfo(symbol, MODE_LOTSTEP));
   // MT4 knows only allowed or not; the protocol uses MT5's SYMBOL_TRADE_MODE numbers (4 full, 0 disabled).
   PutL("trade_mode", MarketInfo(symbol, MODE_TRADEALLOWED) != 0 ? 4 : 0);
   PutL("stops_level", (long)MarketInfo(symbol, MODE_STOPLEVEL));
   PutL("freeze_level", (long)MarketInfo(symbol, MODE_FREEZELEVEL));
   PutP("bid", MarketInfo(symbol, MODE_BID), digits);
   PutP("ask", MarketInfo(symbol, MODE_ASK), digits);
   PutL("time", (long)MarketInfo(symbol, MODE_TIME));
   PutL("filling_mode", 0);
   return "";
  }

//--- positions and orders ---------------------------------------------
// The selected market order as a position, its fields under `prefix`.
void PutPosition(string prefix)
  {
   int digits = DigitsOf(OrderSymbol());
   PutL(prefix + "ticket", OrderTicket());
   Put(prefix + "symbol", OrderSymbol());
   PutL(prefix + "type", OrderType());
   PutD(prefix + "volume", OrderLots());
   PutP(prefix + "price_open", OrderOpenPrice(), digits);
   PutP(prefix + "price_current", OrderClosePrice(), digits); // an open order's close price is the current one
   PutP(prefix + "sl", OrderStopLoss(), digits);
   PutP(prefix + "tp", OrderTakeProfit(), digits);
   PutD(prefix + "profit", OrderProfit());
   PutD(prefix + "swap", OrderSwap());
   PutL(prefix + "magic", OrderMagicNumber());
   Put(prefix + "comment", OrderComment());
   PutL(prefix + "time", (long)OrderOpenTime());
   PutD(prefix + "commission", OrderCommission());
  }

// The selected pending order, its fields under `prefix`; its current price is the one it triggers on.
void PutOrder(string prefix)
  {
   string symbol = OrderSymbol();
   int digits = DigitsOf(symbol);
   bool buy = OrderType() == OP_BUYLIMIT || OrderType() == OP_BUYSTOP;
   PutL(prefix + "ticket", OrderTicket());
   Put(prefix + "symbol", symbol);
   PutL(prefix + "type", OrderType());
   PutD(prefix + "volume", OrderLots());
   PutP(prefix + "price_open", OrderOpenPrice(), digits);
   PutP(prefix + "price_current", MarketInfo(symbol, buy ? MODE_ASK : MODE_BID), digits);
   PutP(prefix + "sl", OrderStopLoss(), digits);
   PutP(prefix + "tp", OrderTakeProfit(), digits);
   PutL(prefix + "magic", OrderMagicNumber());
   Put(prefix + "comment", OrderComment());
   PutL(prefix + "time_setup", (long)OrderOpenTime());
   PutL(prefix + "expiration", (long)OrderExpiration());
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
   string head = g_out;
   g_out = "";
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
   string items = g_out;
   g_out = head;
   PutL("symbols", written);
   PutL("more", more ? 1 : 0);
   g_out += items;
   return "";
  }

// Open orders of the pool, market ones (positions) or pending ones, the first 500 by ticket.
string ListOpen(string name, bool market)
  {
   string problem = ArgsProblem("symbol:t");
   if(problem != "") return problem;
   string filter = Arg("symbol");
   int tickets[];
   int found = 0;
   for(int i = OrdersTotal() - 1; i >= 0; i--)
     {
      if(!OrderSelect(i, SELECT_BY_POS, MODE_TRADES)) continue;
      if(IsMarket(OrderType()) != market || (filter != "" && OrderSymbol() != filter)) continue;
      ArrayResize(tickets, found + 1, 64);
      tickets[found++] = OrderTicket();
     }
   ArraySort(tickets);
   // Items first, count after: an order closed between the two loops is left out and not counted.
   string head = g_out;
   g_out = "";
   int written = 0;
   for(int k = 0; k < found && written < MAX_LIST_ITEMS; k++)
     {
      if(!SelectOpen(tickets[k])) continue;
      if(market) PutPosition(ItemPrefix(name, written++));
      else PutOrder(ItemPrefix(name, written++));
     }
   string items = g_out;
   g_out = head;
   PutL(name, written);
   PutL("more", found > MAX_LIST_ITEMS ? 1 : 0);
   g_out += items;
   return "";
  }
string DoPositions() { return ListOpen("positions", true); }
string DoOrders()    { return ListOpen("orders", false); }

string DoTicket()
  {
   string problem = ArgsProblem("ticket:i!");
   if(problem != "") return problem;
   if(!SelectOpen((int)ArgL("ticket"))) return NotFound();
   if(IsMarket(OrderType())) { Put("kind", "position"); PutPosition(""); }
   else { Put("kind", "order"); PutOrder(""); }
   return "";
  }

//--- trade commands ---------------------------------------------------
string DoSend()
  {
   string problem = ArgsProblem("symbol:t!,op:i!,volume:d!,price:d,slippage:i,stoploss:d,takeprofit:d,comment:t,magic:i,expiration:i");
   if(problem != "") return problem;
   string symbol = Arg("symbol");
   int cmd = (int)ArgL("op"); // OrderSend's `cmd`; `op` on the wire, since `cmd` names the request's command
   if(cmd < OP_BUY || cmd > OP_SELLSTOP) return "bad_request:op must be 0-5";
   if(!SymbolSelect(symbol, true)) return "bad_request:unknown symbol " + symbol;
   double price = ArgD("price");
   if(price == 0 && IsMarket(cmd))
     {
      RefreshRates();
      price = MarketInfo(symbol, cmd == OP_BUY ? MODE_ASK : MODE_BID);
     }
   ResetLastError();
   int ticket = OrderSend(symbol, cmd, ArgD("volume"), price, (int)ArgL("slippage"), ArgD("stoploss"),
                          ArgD("takeprofit"), Arg("comment"), (int)ArgL("magic"), (datetime)ArgL("expiration"), clrNONE);
   int error = ticket < 0 ? GetLastError() : 0;
   int digits = DigitsOf(symbol);
   PutL("error", error);
   PutL("ticket", ticket);
   if(ticket >= 0 && OrderSelect(ticket, SELECT_BY_TICKET))
     {
      PutP("price", OrderOpenPrice(), digits);
      PutD("volume", OrderLots());
      PutP("bid", MarketInfo(symbol, MODE_BID), digits);
      PutP("ask", MarketInfo(symbol, MODE_ASK), digits);
     }
   return "";
  }

// After a partial close MT4 re-opens the rest under a new ticket commented "from #<ticket>"; 0 when none.
int RemainderOf(int ticket)
  {
   string mark = "from #" + IntegerToString(ticket);
   for(int i = OrdersTotal() - 1; i >= 0; i--)
      if(OrderSelect(i, SELECT_BY_POS, MODE_TRADES) && StringFind(OrderComment(), mark) >= 0) return OrderTicket();
   return 0;
  }

string DoClose()
  {
   string problem = ArgsProblem("ticket:i!,volume:d,price:d,slippage:i");
   if(problem != "") return problem;
   int ticket = (int)ArgL("ticket");
   if(!SelectOpen(ticket)) return NotFound();
   if(!IsMarket(OrderType())) return "bad_request:ticket " + Arg("ticket") + " is a pending order, which delete removes";
   string symbol = OrderSymbol();
   double lots = ArgD("volume") > 0 ? ArgD("volume") : OrderLots();
   double price = ArgD("price");
   if(price <= 0)
     {
      RefreshRates();
      price = MarketInfo(symbol, OrderType() == OP_BUY ? MODE_BID : MODE_ASK); // a buy closes at the bid
     }
   ResetLastError();
   bool closed = OrderClose(ticket, lots, price, (int)ArgL("slippage"), clrNONE);
   PutL("error", closed ? 0 : GetLastError());
   PutL("ticket", ticket);
   // The closed part stays in the history under the original ticket with the lots actually closed.
   if(closed && OrderSelect(ticket, SELECT_BY_TICKET))
     {
      PutP("price", OrderClosePrice(), DigitsOf(symbol));
      PutD("volume", OrderLots());
      PutL("new_ticket", RemainderOf(ticket));
     }
   return "";
  }

string DoDelete()
  {
   string problem = ArgsProblem("ticket:i!");
   if(problem != "") return problem;
   int ticket = (int)ArgL("ticket");
   if(!SelectOpen(ticket)) return NotFound();
   if(!IsPending(OrderType())) return "bad_request:ticket " + Arg("ticket") + " is an open position, which close closes";
   ResetLastError();
   bool deleted = OrderDelete(ticket, clrNONE);
   PutL("error", deleted ? 0 : GetLastError());
   PutL("ticket", ticket);
   return "";
  }

// An absent argument keeps the current value; a market order keeps its own open price, as OrderModify requires.
string DoModify()
  {
   string problem = ArgsProblem("ticket:i!,sl:d,tp:d,price:d,expiration:i");
   if(problem != "") return problem;
   int ticket = (int)ArgL("ticket");
   if(!SelectOpen(ticket)) return NotFound();
   bool pending = IsPending(OrderType());
   double price = pending ? ArgD("price", OrderOpenPrice()) : OrderOpenPrice();
   datetime expiration = pending ? (datetime)ArgL("expiration", (long)OrderExpiration()) : OrderExpiration();
   ResetLastError();
   bool modified = OrderModify(ticket, price, ArgD("sl", OrderStopLoss()), ArgD("tp", OrderTakeProfit()), expiration, clrNONE);
   PutL("error", modified ? 0 : GetLastError());
   PutL("ticket", ticket);
   return "";
  }

//--- check ------------------------------------------------------------
string DoCheck()
  {
   string problem = ArgsProblem("symbol:t!,op:i!,volume:d!");
   if(problem != "") return problem;
   string symbol = Arg("symbol");
   int cmd = (int)ArgL("op"); // OrderSend's `cmd`; `op` on the wire, since `cmd` names the request's command
   if(cmd != OP_BUY && cmd != OP_SELL) return "bad_request:cmd must be 0 or 1";
   if(!SymbolSelect(symbol, true)) return "bad_request:unknown symbol " + symbol;
   double volume = ArgD("volume");
   ResetLastError();
   double free_after = AccountFreeMarginCheck(symbol, cmd, volume);
   int error = GetLastError();
   PutD("margin", MarketInfo(symbol, MODE_MARGINREQUIRED) * volume);
   PutD("margin_free", free_after);
   PutL("error", free_after < 0 ? 134 : error); // 134 is ERR_NOT_ENOUGH_MONEY
   return "";
  }

//+------------------------------------------------------------------+
