import { ReplayChatModel, ScriptedChatModel } from "./index";

const REPLY_ID = /^reins-(scripted|replay)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe("the test models' message ids", () => {
  describe("ScriptedChatModel", () => {
    it("gives every reply a random id, invoked or streamed, never one a new model (another process) repeats", async () => {
      const first = new ScriptedChatModel({ replies: ["a", "b"], chunkChars: 1 });
      const second = new ScriptedChatModel({ replies: ["a"] });
      const invoked = await first.invoke("q");
      let streamedId: string | undefined;
      for await (const chunk of await first.stream("q")) streamedId ??= chunk.id;
      const again = await second.invoke("q");
      for (const id of [invoked.id, streamedId, again.id]) expect(id).toMatch(REPLY_ID);
      expect(new Set([invoked.id, streamedId, again.id]).size).toBe(3);
    });
  });

  describe("ReplayChatModel", () => {
    it("gives every reply a random id", async () => {
      const ids = await Promise.all([new ReplayChatModel({ replies: ["x"] }), new ReplayChatModel({ replies: ["x"] })].map(async (model) => (await model.invoke("q")).id));
      for (const id of ids) expect(id).toMatch(REPLY_ID);
      expect(ids[0]).not.toBe(ids[1]);
    });
  });
});
