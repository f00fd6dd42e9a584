import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Logger } from '@mtx/shared/logger';

/** The control API's Fastify type: pino's logger is wider than Fastify's default logger type. */
export type ControlApi = FastifyInstance<Server, IncomingMessage, ServerResponse, Logger>;
