import { MongoBulkWriteError, MongoServerError } from 'mongodb';

/**
 * The one decoder of what a write command did to each of its documents or statements, whatever the driver
 * reported. Every writer that batches (the insert batcher, the ordered run batcher, billing's renewals, the
 * execution journal) asks it instead of reading `writeErrors` by hand.
 *
 * Why it exists: the driver reports a single write error as an object and several as an array; a lost
 * connection or a timeout in the middle of an insertMany also arrives as a `MongoBulkWriteError`, with no write
 * errors at all, so "no write errors" never means "every document stored"; and a write concern error leaves
 * every statement's fate unknown. Only an answer that names the refused statements says which others applied.
 */

/** One statement the store refused: its index in the command, and the server's code (11000: a duplicate key). */
export interface RefusedStatement {
  index: number;
  code: number | undefined;
  message: string;
}

export const duplicateKeyCode = 11000;

export function isDuplicateKeyError(error: unknown): boolean {
  return error instanceof MongoServerError && error.code === duplicateKeyCode;
}

/**
 * The statements a failed write command refused, when its answer says exactly which: an unordered command
 * applied every other statement; an ordered one applied those before the first refused and tried none after
 * it. Null when the failure says nothing about which applied (a lost connection, a timeout, a write concern
 * error, a command error). A command of one statement refused for its key may come as a plain E11000: index 0.
 */
export function refusedStatements(error: unknown, statements: number): RefusedStatement[] | null {
  if (error instanceof MongoBulkWriteError) {
    if (error.writeConcernError !== undefined) return null;
    const reported = [error.writeErrors].flat().filter((item) => item !== undefined && item !== null);
    if (reported.length === 0) return null;
    const refused: RefusedStatement[] = [];
    for (const item of reported) {
      if (!Number.isInteger(item.index) || item.index < 0 || item.index >= statements) return null;
      refused.push({ index: item.index, code: item.code, message: item.errmsg ?? 'write refused' });
    }
    return refused.sort((first, second) => first.index - second.index);
  }
  if (statements === 1 && isDuplicateKeyError(error))
    return [{ index: 0, code: duplicateKeyCode, message: (error as MongoServerError).message }];
  return null;
}

/** Whether every statement a failed command refused was a duplicate key (so, for idempotent inserts, all is in). */
export function refusedOnlyDuplicates(error: unknown, statements: number): boolean {
  const refused = refusedStatements(error, statements);
  return refused?.every((statement) => statement.code === duplicateKeyCode) === true;
}

/** The error a caller of one refused statement gets: the server's own, so `isDuplicateKeyError` holds for E11000. */
export function statementError(statement: RefusedStatement): MongoServerError {
  return new MongoServerError({ message: statement.message, errmsg: statement.message, code: statement.code });
}
