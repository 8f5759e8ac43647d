/** Where an example writes its lines: stdout when run from the command line, a buffer in tests. */
export type Print = (line: string) => void;

/** Writes one line to stdout. */
export const printToStdout: Print = (line) => {
  process.stdout.write(`${line}\n`);
};
