//+------------------------------------------------------------------+
//| MtxBridgeWinsock.mqh: the MT4 EA's TCP link, through ws2_32.dll.  |
//| MQL4 has no socket functions of its own (SocketCreate and the TLS |
//| functions are MQL5 only), so the EA imports the four Winsock calls |
//| it needs. MT4 is a 32-bit program: a SOCKET is 32 bits wide. Wine |
//| provides ws2_32.dll too. There is no TLS here: the EA dials only a |
//| loopback address, where a local TLS tunnel (README) carries the   |
//| connection on to a remote connector.                              |
//+------------------------------------------------------------------+

#define WSA_VERSION_2_2   0x0202
#define AF_INET           2
#define SOCK_STREAM       1
#define IPPROTO_TCP       6
#define FIONBIO           0x8004667E
#define WSAEWOULDBLOCK    10035
#define NO_SOCKET         0xFFFFFFFF
#define SEND_DEADLINE_MS  5000

#import "ws2_32.dll"
int    WSAStartup(ushort version, uchar &data[]);
int    WSACleanup();
int    WSAGetLastError();
uint   socket(int family, int type, int protocol);
int    connect(uint s, int &address[], int length);
int    send(uint s, uchar &buffer[], int length, int flags);
int    recv(uint s, uchar &buffer[], int length, int flags);
int    closesocket(uint s);
int    ioctlsocket(uint s, uint command, uint &argument);
uint   inet_addr(uchar &text[]);
ushort htons(ushort port);
#import

uint g_link = NO_SOCKET;
bool g_wsa_started = false;

bool LinkIsOpen() { return g_link != NO_SOCKET; }

// Connects to an IPv4 loopback address. Blocking is fine for loopback: it is accepted or refused at once.
// After the connect the socket turns non-blocking so that reads in the timer never wait.
bool LinkOpen(string host, int port, string &why)
  {
   if(!g_wsa_started)
     {
      uchar wsa_data[512]; // WSADATA is about 400 bytes on 32-bit Windows
      int started = WSAStartup(WSA_VERSION_2_2, wsa_data);
      if(started != 0) { why = "WSAStartup error " + IntegerToString(started); return false; }
      g_wsa_started = true;
     }
   uchar text[];
   StringToCharArray(host == "localhost" ? "127.0.0.1" : host, text); // ANSI, terminating 0 included
   // sockaddr_in as four ints: family and port (network order) in the first, the address in the second.
   int address[4];
   address[0] = AF_INET | ((int)htons((ushort)port) << 16);
   address[1] = (int)inet_addr(text);
   address[2] = 0;
   address[3] = 0;
   g_link = socket(AF_INET, SOCK_STREAM, IPPROTO_TCP);
   if(g_link == NO_SOCKET) { why = "socket error " + IntegerToString(WSAGetLastError()); return false; }
   if(connect(g_link, address, 16) != 0)
     {
      why = "connect error " + IntegerToString(WSAGetLastError());
      LinkClose();
      return false;
     }
   uint on = 1;
   if(ioctlsocket(g_link, FIONBIO, on) != 0)
     {
      why = "ioctlsocket error " + IntegerToString(WSAGetLastError());
      LinkClose();
      return false;
     }
   return true;
  }

// All n bytes or false. A non-blocking send takes what fits in the socket buffer; the rest waits for room,
// up to SEND_DEADLINE_MS, so a stalled connector cannot hold the terminal's EA thread for long.
bool LinkSend(uchar &data[], int n)
  {
   uint started = GetTickCount();
   int done = 0;
   uchar rest[];
   while(done < n)
     {
      ArrayResize(rest, n - done);
      ArrayCopy(rest, data, 0, done, n - done);
      int sent = send(g_link, rest, n - done, 0);
      if(sent > 0) { done += sent; continue; }
      if(sent < 0 && WSAGetLastError() != WSAEWOULDBLOCK) return false;
      if(GetTickCount() - started > SEND_DEADLINE_MS) return false; // uint subtraction survives the wrap
      Sleep(1);
     }
   return true;
  }

// Bytes read into chunk (more than 0), 0 when nothing is waiting, -1 when the peer closed or the link failed.
int LinkRead(uchar &chunk[])
  {
   ArrayResize(chunk, 65536);
   int got = recv(g_link, chunk, 65536, 0);
   if(got > 0) return got;
   if(got < 0 && WSAGetLastError() == WSAEWOULDBLOCK) return 0;
   return -1;
  }

void LinkClose()
  {
   if(g_link != NO_SOCKET) closesocket(g_link);
   g_link = NO_SOCKET;
  }

void LinkShutdown()
  {
   LinkClose();
   if(g_wsa_started) WSACleanup();
   g_wsa_started = false;
  }
//+------------------------------------------------------------------+
