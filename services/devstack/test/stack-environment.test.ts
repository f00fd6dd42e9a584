import { describe, expect, it } from 'vitest';
import { stackEnvironment } from '../src/services';

const stack = { mongodbUrl: 'mongodb://127.0.0.1:1', natsUrl: 'nats://127.0.0.1:2', dataDirectory: '/tmp/stack-data' };

describe('a stack’s environment', () => {
  it('lets local webhooks reach local receivers unless the caller says otherwise', () => {
    expect(stackEnvironment({}, stack).WEBHOOKS_ALLOW_PRIVATE).toBe('1');
    expect(stackEnvironment({ PATH: '/usr/bin' }, { ...stack, env: { OTHER: 'x' } }).WEBHOOKS_ALLOW_PRIVATE).toBe('1');
  });

  it('honours WEBHOOKS_ALLOW_PRIVATE=0 from the environment (`WEBHOOKS_ALLOW_PRIVATE=0 npm start`) and from env', () => {
    expect(stackEnvironment({ WEBHOOKS_ALLOW_PRIVATE: '0' }, stack).WEBHOOKS_ALLOW_PRIVATE).toBe('0');
    expect(stackEnvironment({}, { ...stack, env: { WEBHOOKS_ALLOW_PRIVATE: '0' } }).WEBHOOKS_ALLOW_PRIVATE).toBe('0');
    // Options win over the process's environment, as for every other variable.
    expect(
      stackEnvironment({ WEBHOOKS_ALLOW_PRIVATE: '0' }, { ...stack, env: { WEBHOOKS_ALLOW_PRIVATE: '1' } }).WEBHOOKS_ALLOW_PRIVATE,
    ).toBe('1');
  });

  it('sets the stack’s own store, bus and data folder over anything inherited', () => {
    const env = stackEnvironment({ MONGODB_URL: 'mongodb://elsewhere', NATS_URL: 'nats://elsewhere', KEEP: 'kept' }, stack);
    expect(env).toMatchObject({ MONGODB_URL: stack.mongodbUrl, NATS_URL: stack.natsUrl, DATA_DIR: stack.dataDirectory, KEEP: 'kept' });
  });
});
