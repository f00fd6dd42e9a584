//+------------------------------------------------------------------+
//| MtxBridgeHistory.mqh: history and find, bridge protocol v1, MT5. |
//| The reads of the past: one page of deals or orders, and which    |
//| items carry a client-id tag (how the connector learns the outcome|
//| of a request whose answer was lost). Included by MtxBridge.mq5;  |
//| uses the argument helpers of MtxBridgeCommands.mqh.              |
//+------------------------------------------------------------------+

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
