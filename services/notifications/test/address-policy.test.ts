import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookSender } from '../src/clients/webhook-sender';
import { classifyAddress } from '../src/domain/address-class';
import { checkEndpointAddresses, parseEndpointUrl, type Resolve } from '../src/domain/url-policy';

/** Names as a test DNS answers them: what an attacker's zone would say. */
const zone: Record<string, string[]> = {
  'internal.example': ['10.0.0.7'],
  'metadata.example': ['169.254.169.254'],
  'mixed.example': ['93.184.216.34', '127.0.0.1'],
  'mapped.example': ['::ffff:127.0.0.1'],
  'teredo.example': ['2001:0:4136:e378:8000:63bf:80ff:fffe'],
  'nat64.example': ['64:ff9b::7f00:1'],
  'ula.example': ['fd00::5'],
  'empty.example': [],
  'public.example': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
};
const testResolve: Resolve = async (hostname) => {
  const answer = zone[hostname];
  if (!answer) throw new Error(`getaddrinfo ENOTFOUND ${hostname}`);
  return answer;
};

/** Creation's two checks, as Endpoints.create runs them: the URL, then what its host resolves to. */
async function admitted(url: string): Promise<true> {
  await checkEndpointAddresses(parseEndpointUrl(url, false), false, testResolve);
  return true;
}

// Loopback, private, link-local, CGNAT, documentation, reserved, multicast, broadcast and unspecified, in the forms
// an auditor tries: other spellings of an IPv4 address, and IPv6 addresses that carry one.
const refusedUrls = [
  'http://127.0.0.1/',
  'http://2130706433/',
  'http://0177.0.0.1/',
  'http://0x7f.1/',
  'http://0x7f000001/',
  'http://127.1/',
  'http://017700000001/',
  'http://0x0a.0.0.1/',
  'http://0/',
  'http://0.0.0.0:8080/',
  'http://[::]/',
  'http://[::1]/',
  'http://[::ffff:127.0.0.1]/',
  'http://[::ffff:7f00:1]/',
  'http://[::ffff:a9fe:a9fe]/latest/meta-data',
  'https://[::ffff:10.0.0.1]:8443/hook',
  'http://[::127.0.0.1]/',
  'http://[::8.8.8.8]/',
  'http://[::ffff:0:127.0.0.1]/',
  'http://[2002:7f00:1::]/',
  'http://[2002:a00:1::1]/',
  'http://[2002:c0a8:101::]/',
  'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/',
  'http://[2001:0:a00:1:8000:63bf:f7f7:f7f7]/',
  'http://[64:ff9b::127.0.0.1]/',
  'http://[64:ff9b::a9fe:a9fe]/',
  'http://[64:ff9b:1::a00:1]/',
  'http://10.0.0.1/',
  'http://172.16.0.1/',
  'http://172.31.255.254/',
  'http://192.168.0.1/',
  'http://169.254.169.254/latest/meta-data',
  'http://100.64.0.1/',
  'http://192.0.0.1/',
  'http://192.0.2.1/',
  'http://198.51.100.1/',
  'http://203.0.113.1/',
  'http://198.18.0.1/',
  'http://224.0.0.1/',
  'http://239.255.255.250/',
  'http://255.255.255.255/',
  'http://240.0.0.1/',
  'http://[fe80::1]/',
  'http://[fc00::1]/',
  'http://[fd12:3456::1]/',
  'http://[fec0::1]/',
  'http://[ff02::1]/',
  'http://[2001:db8::1]/',
  'http://[2001:2::1]/',
  'http://[100::1]/',
  'http://localhost/',
  'http://LOCALHOST./',
  'http://api.localhost/',
  'https://internal.example/hook',
  'https://metadata.example/',
  'https://mixed.example/',
  'https://mapped.example/',
  'https://teredo.example/',
  'https://nat64.example/',
  'https://ula.example/',
  'https://empty.example/',
  'https://unknown.example/',
];

describe('address policy (SSRF) at endpoint creation', () => {
  it.each(refusedUrls)('refuses %s with 400 invalid_request on url', async (url) => {
    const refusal = await admitted(url).catch((error: unknown) => error);
    expect(refusal).toMatchObject({ code: 'invalid_request', param: 'url', httpStatus: 400 });
  });

  it('says which address was refused and why, for people and for programs', async () => {
    const refusal = await admitted('http://[2002:7f00:1::]/').catch((error: unknown) => error);
    expect(refusal).toMatchObject({
      message: expect.stringMatching(/2002:7f00:1:: carries 127\.0\.0\.1 \(loopback\)/),
      details: { reason: 'address_not_public', range: 'loopback', embedded_ipv4: '127.0.0.1' },
    });
    const resolved = await admitted('https://internal.example/').catch((error: unknown) => error);
    expect(resolved).toMatchObject({
      message: expect.stringMatching(/internal\.example resolves to 10\.0\.0\.7/),
      details: { reason: 'address_not_public', address: '10.0.0.7', range: 'private' },
    });
  });

  it('admits global unicast hosts, also IPv6 forms that carry a public IPv4 address', async () => {
    for (const url of [
      'https://8.8.8.8/hook',
      'https://[2606:4700:4700::1111]/',
      'http://[::ffff:8.8.8.8]/',
      'http://[64:ff9b::808:808]/',
      'http://[2002:808:808::1]/',
      'http://[2001:0:4136:e378:8000:63bf:f7f7:f7f7]/',
      'https://public.example/hook',
    ])
      expect(await admitted(url), url).toBe(true);
  });

  it('classifies the embedded IPv4 address of every IPv6 form that carries one', () => {
    expect(classifyAddress('::ffff:0:7f00:1')).toEqual({ public: false, range: 'loopback', embedded: '127.0.0.1' });
    expect(classifyAddress('2001:0:4136:e378:8000:63bf:80ff:fffe')).toEqual({ public: false, range: 'loopback', embedded: '127.0.0.1' });
    expect(classifyAddress('64:ff9b::a00:1')).toEqual({ public: false, range: 'private', embedded: '10.0.0.1' });
    expect(classifyAddress('2002:6440:1::')).toEqual({ public: false, range: 'carrierGradeNat', embedded: '100.64.0.1' });
    expect(classifyAddress('::ffff:808:808')).toEqual({ public: true });
    expect(classifyAddress('example.com')).toMatchObject({ public: false });
  });
});

describe('address policy (SSRF) at delivery', () => {
  let receiver: http.Server;
  let port = 0;
  const connections: string[] = [];
  const hosts: string[] = [];

  beforeAll(async () => {
    receiver = http.createServer((request, response) => {
      hosts.push(String(request.headers.host));
      request.resume();
      request.on('end', () => {
        if (request.url === '/moved') response.writeHead(307, { location: `http://127.0.0.1:${port}/inner` }).end();
        else response.writeHead(204).end();
      });
    });
    receiver.on('connection', (socket) => connections.push(String(socket.remoteAddress)));
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
    port = (receiver.address() as AddressInfo).port;
  });

  afterAll(async () => {
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  const post = (sender: ReturnType<typeof createWebhookSender>, url: string) =>
    sender.send({ customerId: 'cus_ssrf', url, body: '{}', headers: {}, signal: AbortSignal.timeout(5_000) });

  it('does not connect to a name that resolves to a private address now, nor to a private literal', async () => {
    // It resolved to a public address when the endpoint was made; now it answers loopback.
    const now: Record<string, string[]> = { 'rebind.example': ['127.0.0.1'], localhost: ['::1', '127.0.0.1'] };
    const rebinding: Resolve = async (hostname) => now[hostname] ?? testResolve(hostname);
    const sender = createWebhookSender({ allowPrivate: false, resolve: rebinding });
    const before = connections.length;
    for (const url of [`http://rebind.example:${port}/hook`, `http://localhost:${port}/hook`, `http://127.0.0.1:${port}/hook`]) {
      const outcome = await post(sender, url);
      expect(outcome, url).toMatchObject({ ok: false, error: expect.stringMatching(/not a public address/) });
    }
    await sender.close();
    expect(connections.length).toBe(before);
  });

  it('connects to the address it checked, with the name kept as the Host', async () => {
    // The name exists only in the resolver hook: reaching the receiver proves the connection used that answer.
    const sender = createWebhookSender({
      allowPrivate: true,
      resolve: async (hostname) => (hostname === 'receiver.example' ? ['127.0.0.1'] : []),
    });
    const outcome = await post(sender, `http://receiver.example:${port}/hook`);
    await sender.close();
    expect(outcome).toEqual({ ok: true, status: 204 });
    expect(hosts.at(-1)).toBe(`receiver.example:${port}`);
  });

  it('does not follow a redirect: a 3xx is a failed delivery', async () => {
    const sender = createWebhookSender({ allowPrivate: true });
    const before = hosts.length;
    const outcome = await post(sender, `http://127.0.0.1:${port}/moved`);
    await sender.close();
    expect(outcome).toEqual({ ok: false, status: 307, error: 'answered 307' });
    expect(hosts.length).toBe(before + 1);
  });
});
