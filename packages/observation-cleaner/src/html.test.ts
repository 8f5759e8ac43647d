import { htmlToText } from "./html";

const page = `<!doctype html><html><head><title>Read replicas</title></head><body>
<div class="site-header"><a href="/">Northwind Engineering</a><ul class="site-nav"><li><a href="/">Home</a></li><li><a href="/blog">Blog</a></li></ul></div>
<div class="post"><h1>How read replicas cut our cart latency</h1><p>p99 latency dropped from 1.8 s to 340 ms.</p>
<div class="share-buttons"><a href="https://x.example/share">Share on X</a></div>
<div class="newsletter-signup"><h3>Get new posts by email</h3></div>
<div class="related-posts"><h3>Related posts</h3></div>
<div class="comments"><p>Great write-up!</p></div></div>
<div class="site-footer"><p>© 2025 Northwind Inc.</p></div>
<div class="gdpr-bar"><p>This site uses cookies to improve your experience.</p></div>
<div id="onetrust-consent-sdk"><h2>We value your privacy</h2></div>
</body></html>`;

describe("htmlToText", () => {
  describe("on a page without <main> whose boilerplate is marked only by class or id parts", () => {
    const { text } = htmlToText(page);

    it("keeps the article", () => {
      expect(text).toContain("# How read replicas cut our cart latency");
      expect(text).toContain("p99 latency dropped from 1.8 s to 340 ms.");
    });

    it.each([
      ["the site header and menu", "Home"],
      ["the share bar", "Share on X"],
      ["the newsletter box", "Get new posts by email"],
      ["the related-posts box", "Related posts"],
      ["the comment thread", "Great write-up!"],
      ["the site footer", "© 2025 Northwind Inc."],
      ["the GDPR cookie bar", "This site uses cookies"],
      ["the OneTrust consent banner", "We value your privacy"],
    ])("drops %s", (_what, phrase) => {
      expect(text).not.toContain(phrase);
    });
  });
});
