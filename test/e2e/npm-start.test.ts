import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { eventually, listenBacklogOf } from '@mtx/shared/testing';
import { loadGatewayConfig } from '../../services/gateway/src/config';
import { freePort } from '@mtx/devstack/ports';
import { repositoryRoot } from '@mtx/shared/infra/paths';

/**
 * Runs `npm start` as a newcomer would (with its own data folder and port), then checks what the README promises:
 * dev.json appears, /healthz answers ok and no more (metrics and readiness detail are on the operations port), /v1/wallet without a key is a 401 envelope, /openapi.json is valid
 * OpenAPI 3, a crashed child is reported, and Ctrl-C stops everything cleanly.
 */
const dataDirectory = fs.mkdtempSync(path.join(os.tmpdir(), 'mtx-start-'));
let child: ChildProcess;
let output = '';
let port: number;

beforeAll(async () => {
  port = await freePort();
  child = spawn('npm', ['start'], {
    cwd: repositoryRoot,
    // The test's own store and NATS stand in for the ones npm start would provision (the same pinned builds).
    env: {
      ...process.env,
      DATA_DIR: dataDirectory,
      PORT: String(port),
      MONGODB_URL: inject('mongodbUrl'),
      NATS_URL: inject('natsUrl'),
      MONGODB_DATABASE_PREFIX: `start${port}_`,
      // The NATS server is shared with the other test files: terminals answer on subjects of this stack only.
      TERMINAL_SUBJECT_ROOT: `start${port}`,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await eventually(
    async () => output.includes('stack ready') || (child.exitCode !== null && Promise.reject(new Error(`npm start exited:\n${output}`))),
    180_000,
    250,
  );
}, 200_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    process.kill(-child.pid!, 'SIGKILL');
  }
  fs.rmSync(dataDirectory, { recursive: true, force: true });
});

interface DevFile {
  base_url: string;
  full_key: string;
  read_key: string;
  sandbox_url: string;
  accounts: Array<{ id: string; platform: string; server: string; symbol_suffix: string }>;
}

describe('npm start', () => {
  it('writes dev.json with the demo customer, keys and accounts on both platforms', () => {
    const devFile = JSON.parse(fs.readFileSync(path.join(dataDirectory, 'dev.json'), 'utf8')) as DevFile;
    expect(devFile.base_url).toBe(`http://127.0.0.1:${port}`);
    expect(devFile.full_key).toMatch(/^sk_/);
    expect(devFile.read_key).toMatch(/^rk_/);
    expect(devFile.sandbox_url).toMatch(/^http:\/\//);
    expect(new Set(devFile.accounts.map((account) => account.platform))).toEqual(new Set(['mt4', 'mt5']));
    expect(new Set(devFile.accounts.map((account) => account.server)).size).toBeGreaterThanOrEqual(2);
  });

  it('is ready, refuses keyless calls in the envelope and serves valid OpenAPI 3', async () => {
    const devFile = JSON.parse(fs.readFileSync(path.join(dataDirectory, 'dev.json'), 'utf8')) as DevFile;
    const health = await fetch(`${devFile.base_url}/healthz`);
    expect(health.status).toBe(200);
    // Ok or not, nothing more: the checks by name and the metrics are on each service's operations port.
    expect(await health.json()).toEqual({ status: 'ok' });
    expect((await fetch(`${devFile.base_url}/metrics`)).status).toBe(404);
    const run = JSON.parse(fs.readFileSync(path.join(dataDirectory, 'run.json'), 'utf8')) as {
      services: Record<string, { metrics_url: string }>;
    };
    expect((await fetch(`${run.services.gateway!.metrics_url}/readyz`)).status).toBe(200);
    const keyless = await fetch(`${devFile.base_url}/v1/wallet`);
    expect(keyless.status).toBe(401);
    const body = (await keyless.json()) as { error: { code: string }; request_id: string };
    expect(body.error.code).toBe('unauthenticated');
    expect(body.request_id).toBe(keyless.headers.get('x-request-id'));
    const document = await (await fetch(`${devFile.base_url}/openapi.json`)).json();
    await SwaggerParser.validate(document as never);
    const wallet = await fetch(`${devFile.base_url}/v1/wallet`, { headers: { authorization: `Bearer ${devFile.read_key}` } });
    expect(wallet.status).toBe(200);
    // The customer console is built by npm start itself and served by the gateway.
    const consolePage = await fetch(`${devFile.base_url}/console`);
    expect(consolePage.status).toBe(200);
    const script = (await consolePage.text()).match(/<script type="module" src="([^"]+)"/)?.[1];
    expect((await fetch(`${devFile.base_url}${script}`)).status).toBe(200);
    // A burst of clients connecting at once is queued by the kernel, not dropped (Node's own default is 511).
    const { backlog, hostMax } = await listenBacklogOf(port);
    expect(backlog).toBe(Math.min(loadGatewayConfig({}).LISTEN_BACKLOG, hostMax));
  });

  it('reports a crashed child and brings it back', async () => {
    const run = JSON.parse(fs.readFileSync(path.join(dataDirectory, 'run.json'), 'utf8')) as { services: Record<string, { pid: number }> };
    process.kill(run.services.wallet!.pid, 'SIGKILL');
    await eventually(async () => output.includes('wallet exited unexpectedly'), 10_000);
    await eventually(async () => output.includes('wallet restarted'), 60_000);
  }, 90_000);

  it('stops every child on Ctrl-C and exits 0', async () => {
    const run = JSON.parse(fs.readFileSync(path.join(dataDirectory, 'run.json'), 'utf8')) as {
      pid: number;
      services: Record<string, { pid: number }>;
    };
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    process.kill(run.pid, 'SIGINT');
    expect(await exited).toBe(0);
    for (const { pid } of Object.values(run.services)) {
      expect(() => process.kill(pid, 0), `pid ${pid} still alive`).toThrow();
    }
  }, 60_000);
});
