import type { FastifyReply } from 'fastify';

/**
 * A read model's answer together with its JSON text once it has been served. A customer with 500 seats has a
 * subscription and a wallet answer of tens of kilobytes, which the route's serializer wrote out again on every read
 * (and the young generation collected after each); kept with the answer, it is written once per reload.
 */
export interface SerializedAnswer<Body> {
  readonly body: Body;
  json?: ReturnType<FastifyReply['serialize']>;
}

export function serializableAnswer<Body>(body: Body): SerializedAnswer<Body> {
  return { body };
}

/**
 * Sends `answer` as the route's 200 answer. The text comes from `reply.serialize`, the route's own response
 * serializer for the reply's status (200), so it is byte for byte what returning the body would send; a string
 * with a JSON content type is sent as it is.
 */
export function sendSerialized<Body>(reply: FastifyReply, answer: SerializedAnswer<Body>): FastifyReply {
  answer.json ??= reply.serialize(answer.body);
  return reply.type('application/json; charset=utf-8').send(answer.json);
}
