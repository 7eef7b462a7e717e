/**
 * A connection to the inspector of a server the bench started, which runs with
 * `--inspect=127.0.0.1:<port>` (so the service needs no switch of its own for it),
 * and the protocol's calls over it (https://chromedevtools.github.io/devtools-protocol/v8/).
 */
export class Inspector {
  readonly #socket: WebSocket;
  readonly #waiting = new Map<number, (answer: { result?: unknown; error?: { message: string } }) => void>();
  #nextId = 1;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.addEventListener('message', (message) => {
      const answer = JSON.parse(String(message.data)) as { id?: number; result?: unknown; error?: { message: string } };
      if (answer.id !== undefined) this.#waiting.get(answer.id)?.(answer);
    });
  }

  /** Connects to the inspector listening on `port`. */
  static async connect(port: number): Promise<Inspector> {
    const [target] = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { webSocketDebuggerUrl: string }[];
    if (!target) throw new Error(`no inspector target on port ${port}`);
    const socket = new WebSocket(target.webSocketDebuggerUrl);
    await new Promise((resolve, reject) => {
      socket.addEventListener('open', resolve, { once: true });
      socket.addEventListener('error', reject, { once: true });
    });
    return new Inspector(socket);
  }

  /** Calls `method` and resolves with its result; rejects with the inspector's error. */
  call(method: string, params: object = {}): Promise<unknown> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, (answer) => {
        this.#waiting.delete(id);
        if (answer.error) reject(new Error(`${method}: ${answer.error.message}`));
        else resolve(answer.result);
      });
      this.#socket.send(JSON.stringify({ id, method, params }));
    });
  }

  close(): void {
    this.#socket.close();
  }
}
