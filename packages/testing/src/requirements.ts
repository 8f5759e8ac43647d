import { accessSync, constants, existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

/**
 * What a suite needs from outside the clone, and what happens when it is missing.
 *
 * A user's fresh clone has no `../shared` (the captured real data beside the clone in CI) and may
 * lack `redis-server`, `promtool` or `chromium`. There, a suite that needs one is skipped with one
 * test named `skipped (<why>)`, which the root jest reporter lists at the end of the run,
 * so nothing drops silently out of the count. Under `REINS_CI=1` (set by `.ci/run`, which has
 * `../shared` beside the clone and installs the programs) a missing requirement is a failing test.
 *
 * A suite that needs a program runs it: it belongs in the integration suite, so its file must be
 * named `*.integration.test.ts` (scripts/jest/suites.cjs); {@link describeRequiring} refuses one
 * that is not.
 */

/** The environment variable that turns a missing requirement into a failure. */
export const REQUIRE_ALL_VARIABLE = "REINS_CI";

/**
 * The repository's root: three levels above this file (`packages/testing/src/requirements.ts`)
 * under jest (CommonJS); under an ES module loader (tsx running the demo, which imports the test
 * doubles from this package) there is no `__dirname`, so the root is found upward from the working
 * directory by its package.json.
 */
function findRepoRoot(): string {
  if (typeof __dirname === "string") return path.resolve(__dirname, "../../..");
  let directory = process.cwd();
  for (;;) {
    const manifest = path.join(directory, "package.json");
    if (existsSync(manifest) && /"name":\s*"reins-monorepo"/.test(readFileSync(manifest, "utf8"))) return directory;
    const parent = path.dirname(directory);
    if (parent === directory) return process.cwd();
    directory = parent;
  }
}

/** The repository's root. */
export const REPO_ROOT = findRepoRoot();

/** `../shared` beside the clone: the corpus, the fixtures and the trajectories. */
export const SHARED_DIR = path.resolve(REPO_ROOT, "../shared");

/**
 * The absolute path of `relativePath` under `../shared`.
 * @param relativePath - a path inside `../shared`, e.g. `"corpus/peer-dev.json"`.
 */
export function sharedPath(relativePath: string): string {
  return path.join(SHARED_DIR, relativePath);
}

/**
 * One thing a suite needs: a `../shared` path, or a program on the PATH or in one of `alsoIn`
 * (directories Debian keeps outside the PATH, such as `/usr/lib/postgresql/15/bin`).
 */
export type Requirement = { readonly shared: string } | { readonly program: string; readonly alsoIn?: readonly string[] };

function isRequireAll(): boolean {
  const value = process.env[REQUIRE_ALL_VARIABLE];
  return value !== undefined && value !== "" && value !== "0" && value !== "false";
}

/** Whether `candidate` is a file this process may execute. */
function isExecutableFile(candidate: string): boolean {
  try {
    accessSync(candidate, constants.X_OK);
    return statSync(candidate).isFile();
  } catch {
    return false;
  }
}

/** Whether `program` is an executable file in one of the PATH's directories (what `command -v` finds, without a shell). */
function programOnPath(program: string): boolean {
  const directories = (process.env.PATH ?? "").split(path.delimiter).filter((directory) => directory !== "");
  return directories.some((directory) => isExecutableFile(path.join(directory, program)));
}

/**
 * Why `requirement` is not met here, or `undefined` when it is. Without the `../shared` directory
 * at all, every `../shared` requirement has the same one-line reason naming the directory.
 * @param requirement - a `../shared` path or a program name.
 * @param sharedDir - where `../shared` is looked for. @default {@link SHARED_DIR}
 */
export function unmetReason(requirement: Requirement, sharedDir: string = SHARED_DIR): string | undefined {
  if ("shared" in requirement) {
    if (!existsSync(sharedDir)) return `../shared not found at ${sharedDir}`;
    const absolute = path.join(sharedDir, requirement.shared);
    return existsSync(absolute) ? undefined : `../shared/${requirement.shared} not found at ${absolute}`;
  }
  if (findProgram(requirement.program, requirement.alsoIn ?? []) !== undefined) return undefined;
  const where = requirement.alsoIn === undefined || requirement.alsoIn.length === 0 ? "" : ` nor in ${requirement.alsoIn.join(", ")}`;
  return `program ${requirement.program} not on the PATH${where}`;
}

/**
 * The path to run `program` by: its name when it is on the PATH, else its absolute path in the
 * first of `alsoIn` that holds it as an executable file.
 * @param program - a program name, e.g. `"initdb"`
 * @param alsoIn - directories to look in after the PATH
 * @returns the name or path, or `undefined` when it is nowhere
 */
export function findProgram(program: string, alsoIn: readonly string[] = []): string | undefined {
  if (programOnPath(program)) return program;
  return alsoIn.map((directory) => path.join(directory, program)).find(isExecutableFile);
}

/** The suffix of the integration suite's test files (scripts/jest/suites.cjs). */
const INTEGRATION_TEST_SUFFIX = ".integration.test.ts";

/**
 * The failure of a missing requirement: one line, no stack trace (nothing in this file's code is
 * wrong; the stack would only hide the line that says what is missing).
 */
function requirementError(message: string): Error {
  const error = new Error(message);
  error.name = "MissingRequirement";
  error.stack = `${error.name}: ${message}`;
  return error;
}

/**
 * `describe(title, body)` when every requirement is met. Otherwise the body is not run (it may read
 * the missing data at collection time) and the suite holds one test instead: skipped, and named
 * `skipped (<reasons>)`, on a plain machine; failing, with the same reasons, when
 * `REINS_CI=1`.
 * @param requirements - what the suite needs.
 * @param title - the suite's title.
 * @param body - the suite's tests.
 * @throws Error when a requirement is a program and the test file is not `*.integration.test.ts`:
 *   a suite that runs programs belongs in the integration suite (`npm run test:integration`).
 */
export function describeRequiring(requirements: readonly Requirement[], title: string, body: () => void): void {
  const programs = requirements.flatMap((requirement) => ("program" in requirement ? [requirement.program] : []));
  const testPath = expect.getState().testPath;
  if (programs.length > 0 && typeof testPath === "string" && !testPath.endsWith(INTEGRATION_TEST_SUFFIX)) {
    throw new Error(
      `"${title}" needs ${programs.join(", ")}: a suite that runs programs belongs in the integration suite. ` +
        `Rename ${path.basename(testPath)} to *${INTEGRATION_TEST_SUFFIX} (npm run test:integration runs it).`,
    );
  }
  const reasons = requirements.map((requirement) => unmetReason(requirement)).filter((reason): reason is string => reason !== undefined);
  if (reasons.length === 0) {
    describe(title, body);
    return;
  }
  const summary = [...new Set(reasons)].join("; "); // a missing ../shared is one reason, however many of its paths a suite needs
  describe(title, () => {
    if (isRequireAll()) {
      it(`needs ${summary}`, () => {
        throw requirementError(`${REQUIRE_ALL_VARIABLE} is set, so a missing requirement fails the run: ${summary}.`);
      });
    } else {
      it.skip(`skipped (${summary})`, () => undefined);
    }
  });
}

/**
 * {@link describeRequiring} for suites that read `../shared`.
 * @param relativePaths - the paths the suite reads, relative to `../shared`.
 */
export function describeWithShared(relativePaths: readonly string[], title: string, body: () => void): void {
  describeRequiring(relativePaths.map((shared) => ({ shared })), title, body);
}
