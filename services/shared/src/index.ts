export * from './clock';
export * from './config';
export * from './errors';
export * from './logger';
