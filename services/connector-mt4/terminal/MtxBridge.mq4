//+------------------------------------------------------------------+
//| MtxBridge.mq4: terminal bridge protocol v2 and v1, MT4 side.     |
//| Dials a connector, says hello, then carries out its requests and |
//| answers each with its id. The protocol is docs/terminal-bridge.md |
//| in the repository; this EA only translates frames to MQL4 trade  |
//| functions and back. The MT5 EA (services/connector-mt5/terminal) |
//| has the same structure; the differences are MQL4's: a Winsock    |
//| link instead of socket functions, no TLS, a 32-bit tick counter.  |
//+------------------------------------------------------------------+
#property copyright "mtx"
#property version   "1.10"
#property strict
#property description "Needs Allow DLL imports (ws2_32.dll). Dials loopback only: a local TLS tunnel reaches a remote connector."

input string Connectors = "127.0.0.1:7450"; // loopback host:port list, comma-separated
input string Token      = "";               // per-terminal token issued by the connector's operator

#define EA_VERSION     "1.1.0"
#define MAX_FRAME      1048576
#define MAX_INFLIGHT   8
#define HELLO_WAIT_MS  10000
#define TIMER_MS       50

#include "MtxBridgeWinsock.mqh"

bool     g_welcomed = false;
uchar    g_rx[];
string   g_addresses[];
int      g_next_address = 0, g_failures = 0;
ulong    g_next_dial = 0, g_hello_at = 0, g_last_in = 0, g_last_out = 0;
ulong    g_hb_ms = 10000, g_idle_ms = 30000, g_max_inflight = MAX_INFLIGHT;
long     g_last_id = 0;
long     g_version = 1;    // agreed in welcome: 2 adds send_batch
string   g_queue[];          // requests read, not yet answered
ulong    g_queue_read_at[];
string   g_keys[], g_values[]; // fields of the frame being handled
string   g_out;               // answer being built

//--- clock --------------------------------------------------------------
// MQL4 has only GetTickCount, 32 bits of milliseconds that wrap after 49.7 days. The timer reads the clock
// every TIMER_MS, so a wrap is never missed: each time the count goes down, one more 2^32 is added.
uint  g_tick_last = 0;
ulong g_tick_wraps = 0;
ulong NowMs()
  {
   uint tick = GetTickCount();
   if(tick < g_tick_last) g_tick_wraps++;
   g_tick_last = tick;
   return (g_tick_wraps << 32) + tick;
  }

//--- values -----------------------------------------------------------
string Escape(string v)
  {
   StringReplace(v, "%", "%25"); StringReplace(v, "\t", "%09");
   StringReplace(v, "\n", "%0A"); StringReplace(v, "\r", "%0D");
   return v;
  }
int HexValue(ushort c)
  {
   if(c >= '0' && c <= '9') return c - '0';
   if(c >= 'A' && c <= 'F') return c - 'A' + 10;
   if(c >= 'a' && c <= 'f') return c - 'a' + 10;
   return -1;
  }
// Decodes %XX left to right, so "%2509" is the text "%09" and not a TAB; false when a % lacks two hex digits.
// The connector escapes only NUL, TAB, LF, CR and %, all ASCII, so each escape is one character here.
bool Unescape(string v, string &out)
  {
   out = "";
   int n = StringLen(v), from = 0;
   for(int i = StringFind(v, "%"); i >= 0; i = StringFind(v, "%", from))
     {
      int high = i + 2 < n ? HexValue(StringGetCharacter(v, i + 1)) : -1;
      int low = i + 2 < n ? HexValue(StringGetCharacter(v, i + 2)) : -1;
      if(high < 0 || low < 0) return false;
      out += StringSubstr(v, from, i - from) + ShortToString((ushort)(high * 16 + low));
      from = i + 3;
     }
   out += StringSubstr(v, from);
   return true;
  }
// Prices with the symbol's digits; volumes and money with at most 8 decimals, trailing zeros dropped.
// DoubleToString never writes an exponent for a non-negative digit count (docs/terminal-bridge.md, "Numbers").
string Num(double v, int digits) { return DoubleToString(v, digits); }
string Dec(double v)
  {
   string text = DoubleToString(v, 8);
   int end = StringLen(text);
   while(end > 0 && StringGetCharacter(text, end - 1) == '0') end--;
   if(end > 0 && StringGetCharacter(text, end - 1) == '.') end--;
   return StringSubstr(text, 0, end);
  }
bool   Has(string key) { for(int i = 0; i < ArraySize(g_keys); i++) if(g_keys[i] == key) return true; return false; }
string Arg(string key, string fallback = "")
  {
   for(int i = 0; i < ArraySize(g_keys); i++) if(g_keys[i] == key) return g_values[i];
   return fallback;
  }
double ArgD(string key, double fallback = 0) { return Has(key) ? StringToDouble(Arg(key)) : fallback; }
long   ArgL(string key, long fallback = 0)   { return Has(key) ? StringToInteger(Arg(key)) : fallback; }
void   Put(string key, string v) { g_out += "\t" + key + "=" + Escape(v); }
void   PutL(string key, long v)  { g_out += "\t" + key + "=" + IntegerToString(v); }
void   PutD(string key, double v)             { g_out += "\t" + key + "=" + Dec(v); }
void   PutP(string key, double v, int digits) { g_out += "\t" + key + "=" + Num(v, digits); }

// A frame's type, its fields in g_keys/g_values; false when malformed (no type, a field without "=",
// a repeated key, a bad escape).
bool ParseFrame(string line, string &type)
  {
   string parts[];
   int n = StringSplit(line, '\t', parts);
   if(n < 1 || parts[0] == "") return false;
   type = parts[0];
   ArrayResize(g_keys, n - 1); ArrayResize(g_values, n - 1);
   for(int i = 1; i < n; i++)
     {
      int eq = StringFind(parts[i], "=");
      if(eq <= 0) return false;
      string key = StringSubstr(parts[i], 0, eq);
      for(int k = 0; k < i - 1; k++) if(g_keys[k] == key) return false;
      string value;
      if(!Unescape(StringSubstr(parts[i], eq + 1), value)) return false;
      g_keys[i - 1] = key; g_values[i - 1] = value;
     }
   return true;
  }

//--- connection -------------------------------------------------------
bool IsLoopback(string host) { return host == "127.0.0.1" || host == "localhost"; }

// False when the line was not sent: over the frame bound (the connection stays) or a failed write (dropped).
bool SendLine(string line)
  {
   if(!LinkIsOpen()) return false;
   uchar data[];
   int n = StringToCharArray(line + "\n", data, 0, WHOLE_ARRAY, CP_UTF8) - 1; // without the terminating 0
   if(n > MAX_FRAME) { Print("bridge: answer over the frame bound, not sent"); return false; }
   if(!LinkSend(data, n)) { Drop("write failed"); return false; }
   g_last_out = NowMs();
   return true;
  }

void Drop(string why)
  {
   LinkClose();
   g_welcomed = false; g_last_id = 0;
   ArrayResize(g_rx, 0); ArrayResize(g_queue, 0); ArrayResize(g_queue_read_at, 0);
   // Capped exponential backoff with jitter: 1 s doubling to 60 s, each wait between half and all of it.
   g_failures++;
   ulong cap = (ulong)MathMin(60000.0, 1000.0 * MathPow(2, MathMin(g_failures - 1, 6)));
   ulong wait = cap / 2 + (ulong)(MathRand() % (int)(cap / 2 + 1));
   g_next_dial = NowMs() + wait;
   Print("bridge: disconnected (", why, "), next attempt in ", IntegerToString((long)wait), " ms");
  }

void CloseWith(string type, string key, string code, string message)
  {
   g_out = type; Put(key, code); Put("message", message); SendLine(g_out);
   Drop(type + " " + code);
  }

void Dial()
  {
   int count = ArraySize(g_addresses);
   if(count == 0) return;
   string address = g_addresses[g_next_address % count];
   g_next_address++;
   int colon = StringFind(address, ":");
   string host = StringSubstr(address, 0, colon);
   int port = (int)StringToInteger(StringSubstr(address, colon + 1));
   string why = "";
   if(!LinkOpen(host, port, why)) { Drop("connect to " + address + ": " + why); return; }
   g_out = "hello"; Put("v", "2,1"); Put("platform", "mt4");
   PutL("login", AccountNumber()); Put("server", AccountServer());
   Put("ea", EA_VERSION); PutL("build", TerminalInfoInteger(TERMINAL_BUILD)); Put("token", Token);
   // MQL4 has no TimeTradeServer: TimeCurrent is the server time of the last quote, which the connector
   // rounds to the nearest 15 minutes of offset (it lags only while no quote arrives, e.g. at weekends).
   PutL("server_time", (long)TimeCurrent()); PutL("gmt_time", (long)TimeGMT());
   SendLine(g_out);
   g_hello_at = NowMs(); g_last_in = g_hello_at;
  }

//--- reading ----------------------------------------------------------
void ReadAvailable()
  {
   uchar chunk[];
   int got = LinkRead(chunk);
   if(got < 0) { Drop("closed by the connector or read error"); return; }
   if(got == 0) return;
   int held = ArraySize(g_rx);
   ArrayResize(g_rx, held + got);
   ArrayCopy(g_rx, chunk, held, 0, got);
   g_last_in = NowMs();
   int start = 0;
   for(int i = held; i < ArraySize(g_rx) && LinkIsOpen(); i++)
     {
      if(g_rx[i] != '\n') continue;
      HandleLine(CharArrayToString(g_rx, start, i - start, CP_UTF8));
      start = i + 1;
     }
   if(!LinkIsOpen()) return;
   int rest = ArraySize(g_rx) - start;
   if(rest >= MAX_FRAME) { CloseWith("error", "code", "frame_too_large", "frame exceeds 1048576 bytes"); return; }
   if(start > 0) { ArrayCopy(g_rx, g_rx, 0, start, rest); ArrayResize(g_rx, rest); }
  }

void HandleLine(string line)
  {
   string type;
   if(!ParseFrame(line, type)) { CloseWith("error", "code", "malformed", "frame cannot be parsed"); return; }
   if(type == "welcome")
     {
      if(g_welcomed || (Arg("v") != "1" && Arg("v") != "2")) { CloseWith("error", "code", "unexpected_frame", "welcome not expected"); return; }
      g_welcomed = true; g_failures = 0; g_version = ArgL("v");
      g_hb_ms = (ulong)ArgL("hb_ms", 10000); g_idle_ms = (ulong)ArgL("idle_ms", 30000); g_max_inflight = (ulong)ArgL("max_inflight", MAX_INFLIGHT);
      return;
     }
   if(type == "refuse") { Print("bridge: refused (", Arg("reason"), ") ", Arg("message")); Drop("refused"); return; }
   if(type == "bye" || type == "error") { Print("bridge: ", type, " ", Arg("reason"), Arg("code"), " ", Arg("message")); Drop(type); return; }
   if(type == "hb") return;
   if(type == "hello" || type == "res") { CloseWith("error", "code", "unexpected_frame", type + " is sent by the EA"); return; }
   if(type != "req") return; // unknown frame types are ignored
   if(!g_welcomed) { CloseWith("error", "code", "unexpected_frame", "request before welcome"); return; }
   if(!Has("id") || !Has("cmd") || StringToInteger(Arg("id")) < 1) { CloseWith("error", "code", "malformed", "request without id or cmd"); return; }
   long id = StringToInteger(Arg("id"));
   if(id <= g_last_id) { CloseWith("error", "code", "duplicate_id", "request id " + Arg("id") + " is not above " + IntegerToString(g_last_id)); return; }
   g_last_id = id;
   int queued = ArraySize(g_queue);
   if((ulong)queued >= g_max_inflight) { Refuse(id, "busy", IntegerToString(queued) + " requests in flight"); return; }
   ArrayResize(g_queue, queued + 1); ArrayResize(g_queue_read_at, queued + 1);
   g_queue[queued] = line; g_queue_read_at[queued] = NowMs();
  }

void Refuse(long id, string error, string message)
  {
   g_out = "res"; PutL("id", id); Put("status", "error"); Put("error", error); Put("message", message); SendLine(g_out);
  }

//--- timer ------------------------------------------------------------
int OnInit()
  {
   if(StringLen(Token) < 32) { Print("bridge: Token must be at least 32 characters"); return INIT_PARAMETERS_INCORRECT; }
   if(!IsDllsAllowed()) { Print("bridge: allow DLL imports, the EA's link is ws2_32.dll"); return INIT_FAILED; }
   string raw[];
   int n = StringSplit(Connectors, ',', raw);
   ArrayResize(g_addresses, 0);
   for(int i = 0; i < n; i++)
     {
      string a = StringTrimLeft(StringTrimRight(raw[i])); // MQL4's trims return the trimmed text
      if(a == "") continue;
      string host = StringSubstr(a, 0, StringFind(a, ":"));
      // TLS is required off loopback and MQL4 has none: a remote connector is reached through a local tunnel.
      if(!IsLoopback(host)) { Print("bridge: ", a, " is not loopback; dial a local TLS tunnel instead"); return INIT_PARAMETERS_INCORRECT; }
      int k = ArraySize(g_addresses); ArrayResize(g_addresses, k + 1); g_addresses[k] = a;
     }
   MathSrand(GetTickCount());
   // The first connector tried is the login's, so an operator's terminals spread over the replicas.
   if(ArraySize(g_addresses) > 0) g_next_address = AccountNumber() % ArraySize(g_addresses);
   NowMs();
   EventSetMillisecondTimer(TIMER_MS);
   return INIT_SUCCEEDED;
  }

void OnDeinit(const int reason)
  {
   EventKillTimer();
   // Before welcome the EA sends nothing but hello, so a connection still waiting for it just closes.
   if(LinkIsOpen() && g_welcomed) { g_out = "bye"; Put("reason", "deinit"); Put("message", "EA removed"); SendLine(g_out); }
   LinkShutdown();
  }

void OnTimer()
  {
   ulong now = NowMs();
   if(!LinkIsOpen()) { if(now >= g_next_dial) Dial(); return; }
   ReadAvailable();
   if(!LinkIsOpen()) return;
   now = NowMs(); // after the read: g_last_in may now be later than the tick taken above
   if(!g_welcomed && now - g_hello_at > HELLO_WAIT_MS) { Drop("no welcome"); return; }
   if(now - g_last_in > g_idle_ms) { g_out = "bye"; Put("reason", "idle"); Put("message", "nothing received"); SendLine(g_out); Drop("idle"); return; }
   // One request per tick keeps the timer short; the rest wait in the queue, bounded by max_inflight.
   if(ArraySize(g_queue) > 0) ExecuteFirst();
   if(LinkIsOpen() && g_welcomed && NowMs() - g_last_out >= g_hb_ms)
     {
      g_out = "hb"; PutL("server_time", (long)TimeCurrent()); PutL("gmt_time", (long)TimeGMT()); SendLine(g_out);
     }
  }

void ExecuteFirst()
  {
   string line = g_queue[0];
   ulong read_at = g_queue_read_at[0];
   int rest = ArraySize(g_queue) - 1;
   for(int i = 0; i < rest; i++) { g_queue[i] = g_queue[i + 1]; g_queue_read_at[i] = g_queue_read_at[i + 1]; }
   ArrayResize(g_queue, rest); ArrayResize(g_queue_read_at, rest);
   string type;
   ParseFrame(line, type);
   long id = StringToInteger(Arg("id"));
   string cmd = Arg("cmd");
   bool batch = cmd == "send_batch" && g_version >= 2;
   bool trade = cmd == "send" || cmd == "close" || cmd == "delete" || cmd == "modify" || batch;
   if(trade && !Has("ttl_ms")) { Refuse(id, "bad_request", cmd + " needs ttl_ms"); return; }
   if(trade && NowMs() - read_at >= (ulong)ArgL("ttl_ms")) { Refuse(id, "expired", "ttl_ms passed before the trade started"); return; }
   g_out = "res"; PutL("id", id); Put("status", "ok");
   string problem = "";
   if(cmd == "account") DoAccount();
   else if(cmd == "symbol") problem = DoSymbol();
   else if(cmd == "symbols") problem = DoSymbols();
   else if(cmd == "positions") problem = DoPositions();
   else if(cmd == "orders") problem = DoOrders();
   else if(cmd == "ticket") problem = DoTicket();
   else if(cmd == "send") problem = DoSend();
   else if(cmd == "close") problem = DoClose();
   else if(cmd == "delete") problem = DoDelete();
   else if(cmd == "modify") problem = DoModify();
   else if(cmd == "check") problem = DoCheck();
   else if(cmd == "history") problem = DoHistory();
   else if(cmd == "find") problem = DoFind();
   else if(batch) problem = DoSendBatch(read_at);
   else problem = "unsupported:command " + cmd + " is not part of protocol v1";
   if(problem == "")
     {
      // Lists are bounded at 500 items, so this stays far below 1 MiB; the fallback keeps every request answered.
      if(!SendLine(g_out) && LinkIsOpen()) Refuse(id, "internal", "answer exceeds the frame bound");
      return;
     }
   int colon = StringFind(problem, ":");
   Refuse(id, StringSubstr(problem, 0, colon), StringSubstr(problem, colon + 1));
  }

#include "MtxBridgeCommands.mqh"
#include "MtxBridgeHistory.mqh"
#include "MtxBridgeBatch.mqh"
