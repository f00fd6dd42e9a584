//+------------------------------------------------------------------+
//| MtxBridgeHistory.mqh: history and find, bridge protocol v1, MT4. |
//| The reads of the past: one page of closed orders, and which      |
//| orders carry a client-id tag (how the connector learns the       |
//| outcome of a request whose answer was lost). Included by         |
//| MtxBridge.mq4; uses the helpers of MtxBridgeCommands.mqh.        |
//+------------------------------------------------------------------+

//--- history ----------------------------------------------------------
void PutHistoryOrder(string prefix)
  {
   int digits = DigitsOf(OrderSymbol());
   PutL(prefix + "ticket", OrderTicket());
   PutL(prefix + "type", OrderType());
   Put(prefix + "symbol", OrderSymbol());
   PutD(prefix + "volume", OrderLots());
   PutP(prefix + "price_open", OrderOpenPrice(), digits);
   PutP(prefix + "price_close", OrderClosePrice(), digits);
   PutL(prefix + "time_open", (long)OrderOpenTime());
   PutL(prefix + "time_close", (long)OrderCloseTime());
   PutP(prefix + "sl", OrderStopLoss(), digits);
   PutP(prefix + "tp", OrderTakeProfit(), digits);
   PutD(prefix + "profit", OrderProfit());
   PutD(prefix + "swap", OrderSwap());
   PutD(prefix + "commission", OrderCommission());
   PutL(prefix + "magic", OrderMagicNumber());
   Put(prefix + "comment", OrderComment());
   PutL(prefix + "expiration", (long)OrderExpiration());
  }

// The history pool's orders closed between from and to, sorted by ticket so that every page of a fixed
// range sees the same order whatever order the terminal loaded its history in.
string DoHistory()
  {
   string problem = ArgsProblem("kind:t!,from:i!,to:i!,offset:i,limit:i");
   if(problem != "") return problem;
   if(Arg("kind") == "deals") return "bad_request:MT4 has no deals; ask for kind=orders";
   if(Arg("kind") != "orders") return "bad_request:kind must be orders on MT4";
   long offset = ArgL("offset", 0), limit = ArgL("limit", MAX_LIST_ITEMS);
   if(offset < 0) return "bad_request:offset must not be negative";
   if(limit < 1 || limit > MAX_LIST_ITEMS) return "bad_request:limit must be 1-500";
   datetime from = (datetime)ArgL("from"), to = (datetime)ArgL("to");
   int tickets[];
   int total = 0;
   for(int i = OrdersHistoryTotal() - 1; i >= 0; i--)
     {
      if(!OrderSelect(i, SELECT_BY_POS, MODE_HISTORY) || OrderCloseTime() < from || OrderCloseTime() > to) continue;
      ArrayResize(tickets, total + 1, 256);
      tickets[total++] = OrderTicket();
     }
   ArraySort(tickets);
   int start = (int)MathMin(offset, total);
   int count = (int)MathMin(total - start, limit);
   PutL("orders", count);
   PutL("total", total);
   PutL("more", start + count < total ? 1 : 0);
   for(int k = 0; k < count; k++)
     {
      // Selected from the history pool by ticket; history orders do not change, so it is still there.
      if(OrderSelect(tickets[start + k], SELECT_BY_TICKET, MODE_HISTORY)) PutHistoryOrder(ItemPrefix("orders", k));
      else PutL(ItemPrefix("orders", k) + "ticket", tickets[start + k]);
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

// Which open and closed orders carry one of the request's client-id tags: how the connector learns the
// outcome of a request whose answer was lost (docs/terminal-bridge.md, "Client id in the comment").
string DoFind()
  {
   string problem = ArgsProblem("tags:t!,from:i!");
   if(problem != "") return problem;
   string tags[];
   int n = StringSplit(Arg("tags"), ',', tags);
   if(n < 1 || n > MAX_FIND_TAGS) return "bad_request:tags must hold 1-50 tags";
   for(int t = 0; t < n; t++)
      if(!IsTag(tags[t])) return "bad_request:" + tags[t] + " is not ~ and 10 characters a-z 2-7";
   datetime from = (datetime)ArgL("from");
   string head = g_out;
   g_out = "";
   int matches = 0;
   bool cut = false;
   for(int pool = 0; pool < 2 && !cut; pool++)
     {
      bool history = pool == 1;
      int size = history ? OrdersHistoryTotal() : OrdersTotal();
      for(int i = 0; i < size; i++)
        {
         if(!OrderSelect(i, SELECT_BY_POS, history ? MODE_HISTORY : MODE_TRADES)) continue;
         if(history && OrderCloseTime() < from) continue;
         string tag = TagIn(OrderComment(), tags);
         if(tag == "") continue;
         if(matches >= MAX_LIST_ITEMS) { cut = true; break; }
         string p = ItemPrefix("matches", matches++);
         Put(p + "tag", tag);
         Put(p + "where", history ? "history_order" : (IsMarket(OrderType()) ? "position" : "order"));
         PutL(p + "ticket", OrderTicket());
         Put(p + "symbol", OrderSymbol());
         PutL(p + "type", OrderType());
         PutD(p + "volume", OrderLots());
         PutP(p + "price", OrderOpenPrice(), DigitsOf(OrderSymbol()));
         PutL(p + "time", (long)OrderOpenTime());
         PutL(p + "magic", OrderMagicNumber());
         Put(p + "comment", OrderComment());
        }
     }
   string items = g_out;
   g_out = head;
   PutL("matches", matches);
   PutL("more", cut ? 1 : 0);
   g_out += items;
   return "";
  }
//+------------------------------------------------------------------+
