import { describe, expect, it } from 'vitest';
import { batchSpanProcessorSettings, statementShape } from '../src/telemetry';

describe('statementShape (db.query.text of database spans)', () => {
  it('keeps the fields of a command two levels deep and replaces every value, so no data reaches a span', () => {
    const shape = statementShape({ find: 'accounts', filter: { _id: 'acc_secret', customer_id: { $in: ['cus_a', 'cus_b'] } }, limit: 1 });
    expect(JSON.parse(shape)).toEqual({ find: '?', filter: { _id: '?', customer_id: '?' }, limit: '?' });
    expect(shape).not.toContain('acc_secret');
    expect(shape).not.toContain('cus_a');
  });

  it('writes an array as its length and a non-plain value (date, id, buffer) as a placeholder', () => {
    const document = { _id: 'bat_1', created_at: new Date(), payload: Buffer.from('password'), legs: [{ password: 'pw-1' }, { password: 'pw-2' }] };
    expect(JSON.parse(statementShape(document))).toEqual({ _id: '?', created_at: '?', payload: '?', legs: '[2]' });
  });

  it('bounds the number of fields it writes per level', () => {
    const wide = Object.fromEntries(Array.from({ length: 40 }, (_, index) => [`field${index}`, index]));
    const shape = JSON.parse(statementShape(wide)) as Record<string, unknown>;
    expect(Object.keys(shape)).toHaveLength(17);
    expect(shape['…']).toBe('?');
  });
});

describe('batchSpanProcessorSettings', () => {
  it('defaults to a deep queue and small exports', () => {
    expect(batchSpanProcessorSettings({})).toEqual({ maxQueueSize: 8_192, maxExportBatchSize: 256, scheduledDelayMillis: 1_000 });
  });

  it('honours the OTEL_BSP_* variables and ignores values that are not positive integers', () => {
    expect(batchSpanProcessorSettings({ OTEL_BSP_MAX_QUEUE_SIZE: '4096', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '512', OTEL_BSP_SCHEDULE_DELAY: '100' })).toEqual({
      maxQueueSize: 4_096,
      maxExportBatchSize: 512,
      scheduledDelayMillis: 100,
    });
    expect(batchSpanProcessorSettings({ OTEL_BSP_MAX_QUEUE_SIZE: 'lots', OTEL_BSP_SCHEDULE_DELAY: '-5' })).toEqual({ maxQueueSize: 8_192, maxExportBatchSize: 256, scheduledDelayMillis: 1_000 });
  });
});
