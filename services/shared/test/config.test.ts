import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { ConfigError, baseConfigProperties, loadConfig } from '../src/service/config';

const schema = Type.Object({
  ...baseConfigProperties,
  GRPC_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 50051 }),
  FEATURE_ENABLED: Type.Boolean({ default: true }),
});

describe('loadConfig', () => {
  it('applies defaults and converts strings from the environment', () => {
    const config = loadConfig(schema, { GRPC_PORT: '6000', FEATURE_ENABLED: 'false', UNRELATED: 'x' });
    expect(config.GRPC_PORT).toBe(6000);
    expect(config.FEATURE_ENABLED).toBe(false);
    expect(config.MONGODB_DATABASE_PREFIX).toBe('mtx_');
    expect(config).not.toHaveProperty('UNRELATED');
  });

  it('refuses bad values and lists every problem', () => {
    try {
      loadConfig(schema, { GRPC_PORT: '70000', LOG_LEVEL: 'loud' });
      expect.unreachable('loadConfig accepted a bad environment');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const problems = (error as ConfigError).problems.join('\n');
      expect(problems).toContain('GRPC_PORT');
      expect(problems).toContain('LOG_LEVEL');
    }
  });
});
