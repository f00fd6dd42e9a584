export * from './service/clock';
export * from './service/config';
export * from './service/errors';
export * from './telemetry/logger';
