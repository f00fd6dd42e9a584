/**
 * One Idempotency-Key per logical submission: made when the person first sends it and kept for every retry of
 * the same body, so a double click or a retry after a timeout is answered from the first attempt and never
 * trades twice. A changed body gets a new key.
 */
export class SubmissionKeys {
  private body = '';
  private key = '';

  keyFor(body: unknown): string {
    const text = JSON.stringify(body);
    if (text !== this.body || !this.key) {
      this.body = text;
      this.key = crypto.randomUUID();
    }
    return this.key;
  }
}
