import { describe, expect, it } from "vitest";
import { mapLimit } from "./async-utils";

/** A promise settled from outside, to finish calls in an order the test chooses. */
function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe("mapLimit", () => {
  it("gives the results in the order of the items when they finish in another order", async () => {
    const gates = [0, 1, 2, 3, 4].map(() => deferred<void>());
    const done = mapLimit(["a", "b", "c", "d", "e"], 2, async (item, i) => {
      await gates[i]!.promise;
      return `${item}${i}`;
    });
    for (const i of [1, 0, 3, 4, 2]) {
      gates[i]!.resolve();
      await tick();
    }
    await expect(done).resolves.toEqual(["a0", "b1", "c2", "d3", "e4"]);
  });

  it("runs no more than `limit` calls at once and starts them in the order of the items", async () => {
    const gates = Array.from({ length: 6 }, () => deferred<void>());
    const started: number[] = [];
    let running = 0;
    let most = 0;
    const done = mapLimit([10, 11, 12, 13, 14, 15], 3, async (item, i) => {
      started.push(item);
      running += 1;
      most = Math.max(most, running);
      await gates[i]!.promise;
      running -= 1;
      return item * 2;
    });
    await tick();
    expect(started).toEqual([10, 11, 12]);
    gates[2]!.resolve();
    await tick();
    expect(started).toEqual([10, 11, 12, 13]);
    for (const g of gates) g.resolve();
    await expect(done).resolves.toEqual([20, 22, 24, 26, 28, 30]);
    expect(most).toBe(3);
  });

  it("rejects with the first failure and starts nothing after it", async () => {
    const started: number[] = [];
    const done = mapLimit([0, 1, 2, 3], 1, async (i) => {
      started.push(i);
      if (i === 1) throw new Error("chart 1 could not be drawn");
      return i;
    });
    await expect(done).rejects.toThrow("chart 1 could not be drawn");
    expect(started).toEqual([0, 1]);
  });

  it("answers an empty list with an empty list and refuses a limit below 1", async () => {
    await expect(mapLimit([], 4, async (x: number) => x)).resolves.toEqual([]);
    await expect(mapLimit([1], 0, async (x) => x)).rejects.toThrow(/limit of 1 or more/);
  });
});
