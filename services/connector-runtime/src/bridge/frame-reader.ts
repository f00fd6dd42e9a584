import { BridgeProtocolError, decodeLine, maxFrameBytes, type RawFrame } from './wire';

/**
 * Frames out of a byte stream cut anywhere (a socket's chunks): bytes are held until their LF arrives. A line
 * that reaches the frame bound without an LF fails at once, without waiting for the rest, so a peer cannot make
 * the reader hold more than one bound's worth of bytes. After a failure the connection is to be closed: every
 * later push fails with the same error.
 */
export class FrameReader {
  private held: Uint8Array[] = [];
  private heldBytes = 0;
  private failure: BridgeProtocolError | undefined;

  constructor(private readonly maxBytes = maxFrameBytes) {}

  /** Bytes of an unfinished line held so far. */
  get bufferedBytes(): number {
    return this.heldBytes;
  }

  /** The frames this chunk completes, in order. Throws BridgeProtocolError on an oversized or malformed line. */
  push(chunk: Uint8Array): RawFrame[] {
    if (this.failure) throw this.failure;
    const frames: RawFrame[] = [];
    let start = 0;
    try {
      while (start < chunk.length) {
        const newline = chunk.indexOf(0x0a, start);
        const end = newline < 0 ? chunk.length : newline;
        // The line so far, its LF still to come, already needs the whole bound: it cannot be a frame.
        if (this.heldBytes + (end - start) + 1 > this.maxBytes)
          throw new BridgeProtocolError('frame_too_large', `frame exceeds ${this.maxBytes} bytes`);
        if (newline < 0) {
          this.hold(chunk.subarray(start));
          break;
        }
        frames.push(decodeLine(this.takeLine(chunk.subarray(start, newline))));
        start = newline + 1;
      }
    } catch (error) {
      this.failure = error instanceof BridgeProtocolError ? error : new BridgeProtocolError('malformed', String(error));
      this.held = [];
      this.heldBytes = 0;
      throw this.failure;
    }
    return frames;
  }

  private hold(part: Uint8Array): void {
    // A copy: the caller may reuse its chunk's memory.
    this.held.push(Uint8Array.from(part));
    this.heldBytes += part.length;
  }

  private takeLine(tail: Uint8Array): Uint8Array {
    if (this.heldBytes === 0) return tail;
    const line = new Uint8Array(this.heldBytes + tail.length);
    let offset = 0;
    for (const part of this.held) {
      line.set(part, offset);
      offset += part.length;
    }
    line.set(tail, offset);
    this.held = [];
    this.heldBytes = 0;
    return line;
  }
}
