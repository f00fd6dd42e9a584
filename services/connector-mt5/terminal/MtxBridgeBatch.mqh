//+------------------------------------------------------------------+
//| MtxBridgeBatch.mqh: send_batch (protocol v2) on MT5.             |
//| The items one at a time, in index order, each exactly as a send  |
//| (its checks, then one OrderSend); one answer with the list       |
//| "results". Included by MtxBridge.mq5 after the trade commands.   |
//+------------------------------------------------------------------+

#define MAX_BATCH_ITEMS 64

// True when key is "legs.<index>.<argument>" with index below count (written without leading zeros).
bool IsItemKey(string key, long count)
  {
   int dot = StringFind(key, ".", 5);
   if(dot <= 5 || dot == StringLen(key) - 1) return false;
   string index = StringSubstr(key, 5, dot - 5);
   long at = StringToInteger(index);
   return IntegerToString(at) == index && at >= 0 && at < count;
  }

// Every item's arguments are checked readable before any item runs, so an error answer still means that no
// trade function was called. An item is started only while ttl_ms has not passed since the frame was read;
// an item refused by its own checks answers its error and the next one still runs.
string DoSendBatch(ulong read_at)
  {
   long count = ArgL("legs", -1);
   if(count < 1 || count > MAX_BATCH_ITEMS) return "bad_request:send_batch needs legs, 1..64";
   string keys[], values[];
   ArrayCopy(keys, g_keys); ArrayCopy(values, g_values);
   int n = ArraySize(keys);
   for(int i = 0; i < n; i++)
      if(StringFind(keys[i], "legs.") == 0 && !IsItemKey(keys[i], count)) return "bad_request:" + keys[i] + " is not an item's argument";
   ulong ttl = (ulong)ArgL("ttl_ms");
   string head = g_out; // "res", the id and status=ok
   string body = "\tresults=" + IntegerToString(count);
   for(long item = 0; item < count; item++)
     {
      // A connection that ended takes its requests with it: no further item is started (nothing is sent).
      if(!(g_socket != INVALID_HANDLE && SocketIsConnected(g_socket))) { g_out = head + body; return ""; }
      // The item's arguments without their prefix stand in for a send's fields.
      string prefix = "legs." + IntegerToString(item) + ".";
      int cut = StringLen(prefix);
      ArrayResize(g_keys, 0); ArrayResize(g_values, 0);
      for(int i = 0; i < n; i++)
        {
         if(StringFind(keys[i], prefix) != 0) continue;
         int k = ArraySize(g_keys);
         ArrayResize(g_keys, k + 1); ArrayResize(g_values, k + 1);
         g_keys[k] = StringSubstr(keys[i], cut); g_values[k] = values[i];
        }
      string results = "results." + IntegerToString(item) + ".";
      g_out = "";
      string problem = GetTickCount64() - read_at >= ttl ? "expired:ttl_ms passed before the trade started" : DoSend();
      if(problem == "")
        {
         // Values hold no raw TAB (Escape wrote each as %09), so every TAB here starts a field.
         StringReplace(g_out, "\t", "\t" + results);
         body += "\t" + results + "status=ok" + g_out;
         continue;
        }
      int colon = StringFind(problem, ":");
      g_out = "";
      Put(results + "status", "error"); Put(results + "error", StringSubstr(problem, 0, colon));
      Put(results + "message", StringSubstr(problem, colon + 1));
      body += g_out;
     }
   g_out = head + body;
   return "";
  }
