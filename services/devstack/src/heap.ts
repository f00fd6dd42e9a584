/**
 * V8 starts a process's old generation with a small first limit and lowers it further by how much survives the
 * young generation, so a service under load runs a major collection every few seconds (payments at 1,000
 * postbacks/s: every ~10 s). Each one marks concurrently on the machine's other cores, which on a small machine
 * are the cores the stores and NATS answer on: the one slow second of a run. A fixed first limit leaves the major
 * collections to when the heap is really that large. The limit is V8's `--initial-old-space-size`, which Node
 * refuses in NODE_OPTIONS, so every start of a service passes it as an argument (the image does the same from the
 * same variable). V8 keeps it below the heap's maximum, which Node derives from the memory a container may use.
 */
export const initialOldSpaceVariable = 'NODE_INITIAL_OLD_SPACE_MB';

/** Local stacks run on a developer's or CI's machine, not in a container with a memory limit. */
export const initialOldSpaceDefaultMb = 1_024;

/** Node's arguments for a service started with `env`; `0` leaves V8's own heuristics. */
export function heapArguments(env: NodeJS.ProcessEnv): string[] {
  const text = env[initialOldSpaceVariable];
  const megabytes = text === undefined || text === '' ? initialOldSpaceDefaultMb : Number(text);
  if (!Number.isSafeInteger(megabytes) || megabytes < 0)
    throw new Error(`${initialOldSpaceVariable} must be a whole number of megabytes (0 for V8's default), not '${text}'`);
  return megabytes === 0 ? [] : [`--initial-old-space-size=${megabytes}`];
}
