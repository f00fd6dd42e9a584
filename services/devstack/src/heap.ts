/**
 * V8 starts a process's old generation with a small first limit and lowers it further by how much survives the
 * young generation, so a service under load runs a major collection every few seconds (payments at 1,000
 * postbacks/s: every ~10 s). Each one marks concurrently on the machine's other cores, which on a small machine
 * are the cores the stores and NATS answer on: the one slow second of a run. A fixed first limit leaves the major
 * collections to when the heap is really that large. The limit is V8's `--initial-old-space-size`, which Node
 * refuses in NODE_OPTIONS, so every start of a service passes it as an argument (the image does the same from the
 * same variable). V8 keeps it below the heap's maximum, which Node derives from the memory a container may use.
 *
 * That limit alone leaves a second trigger. V8 13.6 (Node 24) also starts a major collection whenever the memory
 * array buffers hold outside its heap (every socket read, every Buffer) has grown 64 MB since the last one,
 * whatever the heap's limit: payments at 1,000 postbacks/s every 23-40 s, a 31-43 ms pause, the slowest second
 * of every run. `--external-memory-accounted-in-global-limit` counts that memory against the same limit as the
 * heap instead. V8 made this its only behaviour in 14.8 and dropped the flag; Node 24 stays on 13.6, and a Node
 * that no longer knew the flag would refuse to start rather than run without it.
 */
export const initialOldSpaceVariable = 'NODE_INITIAL_OLD_SPACE_MB';

/** Not a setting: how V8 counts array buffers from 14.8 on, so every service starts with it. */
const externalMemoryArgument = '--external-memory-accounted-in-global-limit';

/** Local stacks run on a developer's or CI's machine, not in a container with a memory limit. */
export const initialOldSpaceDefaultMb = 1_024;

/**
 * A scavenge's pause is the time to copy what is still alive in the young generation, and under sustained load
 * that is a steady share of what was allocated since the last one (payments: ~10 %, whatever the interval). V8
 * sizes each half of the young generation from the heap's maximum: 64 MB on a machine with 23 GB, so payments at
 * 1,000 postbacks/s paused 7-16 ms every 0.84 s, and about one acknowledgement in a hundred arrived during one. At
 * 16 MB the same copying comes in pauses of 3-9 ms, four to five times as often, for the same CPU (payments: 0.53
 * ms per postback, 0.55 before). At 4 MB, work still in flight is copied over and over: 4 times the pause time.
 */
export const semiSpaceVariable = 'NODE_MAX_SEMI_SPACE_MB';

export const semiSpaceDefaultMb = 16;

/** Node's arguments for a service started with `env`; `0` in either variable leaves that size to V8. */
export function heapArguments(env: NodeJS.ProcessEnv): string[] {
  const initialOldSpaceMb = megabytesOf(env, initialOldSpaceVariable, initialOldSpaceDefaultMb);
  const semiSpaceMb = megabytesOf(env, semiSpaceVariable, semiSpaceDefaultMb);
  return [
    ...(initialOldSpaceMb === 0 ? [] : [`--initial-old-space-size=${initialOldSpaceMb}`]),
    externalMemoryArgument,
    ...(semiSpaceMb === 0 ? [] : [`--max-semi-space-size=${semiSpaceMb}`]),
  ];
}

function megabytesOf(env: NodeJS.ProcessEnv, variable: string, defaultMb: number): number {
  const text = env[variable];
  const megabytes = text === undefined || text === '' ? defaultMb : Number(text);
  if (!Number.isSafeInteger(megabytes) || megabytes < 0)
    throw new Error(`${variable} must be a whole number of megabytes (0 for V8's default), not '${text}'`);
  return megabytes;
}
