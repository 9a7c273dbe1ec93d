// A FIFO readers-writer lock. Ordinary upstream requests share it; the pre-confirmation
// machinery takes it exclusively while it mines a temporary block and reverts it, so no
// client can observe that block or the briefly emptied transaction pool.

interface Waiter {
  exclusive: boolean;
  grant: () => void;
}

export class RwLock {
  private readers = 0;
  private writer = false;
  private readonly queue: Waiter[] = [];

  shared<T>(fn: () => Promise<T>): Promise<T> {
    return this.run(false, fn);
  }

  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.run(true, fn);
  }

  private async run<T>(exclusive: boolean, fn: () => Promise<T>): Promise<T> {
    await new Promise<void>((grant) => {
      this.queue.push({ exclusive, grant });
      this.drain();
    });
    try {
      return await fn();
    } finally {
      if (exclusive) this.writer = false;
      else this.readers -= 1;
      this.drain();
    }
  }

  // Strict FIFO: a reader queued behind a waiting writer waits too, so seals are not starved.
  private drain(): void {
    while (this.queue.length > 0 && !this.writer) {
      const head = this.queue[0];
      if (head.exclusive && this.readers > 0) return;
      this.queue.shift();
      if (head.exclusive) this.writer = true;
      else this.readers += 1;
      head.grant();
    }
  }
}
