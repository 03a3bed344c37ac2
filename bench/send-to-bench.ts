// How a bench child process hands its figures back: over IPC when the bench forked it, else printed as one line.

export function sendToBench(message: unknown): Promise<void> {
  if (!process.send) {
    process.stdout.write(`${JSON.stringify(message)}\n`);
    return Promise.resolve();
  }
  return new Promise((resolve, reject) => {
    process.send!(message, undefined, {}, (error) => {
      if (error) return reject(error);
      // The open IPC channel would keep this process alive.
      process.disconnect();
      resolve();
    });
  });
}
