/**
 * How an account's emulated terminal answers, switched from the control API so that tests can break the bridge
 * from the terminal's side (docs/terminal-bridge.md):
 * - `normal`: as the reference EA;
 * - `silent`: a frozen terminal. The EA keeps its connection but reads and drops every request without carrying it
 *   out, and sends no answer and no heartbeat, so the connector's idle bound ends the connection; the EA then
 *   dials again as usual and answers again once its account is `normal`;
 * - `garbage`: the EA's next frame is replaced by a malformed line (docs/terminal-bridge.md, "Wire format"), which
 *   the connector answers with `error code=malformed` and a close; the account is `normal` again right after.
 */
export const terminalAnswerModes = ['normal', 'silent', 'garbage'] as const;
export type TerminalAnswers = (typeof terminalAnswerModes)[number];

/** What one terminal's EA asks before each frame it reads or writes. */
export interface TerminalBehaviour {
  answers(): TerminalAnswers;
  /** The malformed line went out: `garbage` is one frame only. */
  garbageSent(): void;
}

/** The switch of every account, by `<server>:<login>`; an account never switched is `normal`. */
export class TerminalBehaviours {
  private readonly byAccount = new Map<string, TerminalAnswers>();

  set(server: string, login: string, answers: TerminalAnswers): void {
    if (answers === 'normal') this.byAccount.delete(accountKey(server, login));
    else this.byAccount.set(accountKey(server, login), answers);
  }

  of(server: string, login: string): TerminalAnswers {
    return this.byAccount.get(accountKey(server, login)) ?? 'normal';
  }

  /** The behaviour handed to the EA of this account's terminal. */
  behaviourOf(server: string, login: string): TerminalBehaviour {
    return {
      answers: () => this.of(server, login),
      garbageSent: () => {
        if (this.of(server, login) === 'garbage') this.set(server, login, 'normal');
      },
    };
  }
}

const accountKey = (server: string, login: string) => `${server}:${login}`;

/**
 * The malformed line sent in place of a frame: the frame's type, then a field without `=` and an escape without
 * its two hex digits, each of which makes a frame malformed.
 */
export function malformedLine(type: string): string {
  return `${type}\tid=%G1\tnot a field\n`;
}
