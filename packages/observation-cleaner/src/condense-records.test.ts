import { cleanObservation } from "./clean-observation";

const money = (amount: string) => ({ shop_money: { amount, currency_code: "USD" }, presentment_money: { amount, currency_code: "USD" } });

describe("cleanObservation", () => {
  describe("when a nested record only repeats values of its record", () => {
    const order = { name: "#1047", currency: "USD", total_price: "128.47", total_price_set: money("128.47"), discount: { code: "SPRING10", amount: "10.00" } };
    const { text, notes } = cleanObservation(order);

    it("drops the repeating record (Shopify money sets) and says so", () => {
      expect(text).not.toContain("total_price_set");
      expect(text).not.toContain("shop_money");
      expect(text).toContain("total_price: 128.47");
      expect(notes.join("\n")).toMatch(/nested record\(s\) or list\(s\) whose every value already stands in the record/);
    });

    it("keeps a nested record with a value of its own", () => {
      expect(text).toContain("SPRING10");
      expect(text).toContain("10.00");
    });

    it("keeps a nested record whose repeated values are short numbers or flags (chance repeats)", () => {
      const cleaned = cleanObservation({ count: 3, enabled: true, range: { from: 3, to: 3 }, flags: { enabled: true } }).text;
      expect(cleaned).toContain("range");
      expect(cleaned).toContain("flags");
    });

    it("keeps the record when noise dropping is off", () => {
      expect(cleanObservation(order, { dropNoise: false }).text).toContain("total_price_set");
    });
  });

  describe("when a record has more fields than the budget shows", () => {
    const record = (index: number): Record<string, unknown> => {
      const fields: Record<string, unknown> = { id: 5812345678900 + index };
      for (let field = 0; field < 60; field += 1) fields[`attribute_${field}`] = field % 3 === 0 ? field % 2 === 0 : `value ${field} of order ${index}`;
      fields.line_items = [
        { id: 1, title: `Trail Runner Sock ${index}`, price: "14.00", gift_card: false, fulfillment_status: null },
        { id: 2, title: `Packable Rain Shell ${index}`, price: "90.00", gift_card: false, fulfillment_status: null },
      ];
      fields.financial_status = "paid";
      return fields;
    };
    const { text, truncated } = cleanObservation({ orders: [record(1), record(2), record(3)] }, { maxChars: 3000 });

    it("shows the record's lists (its content) and its status before plain fields", () => {
      expect(truncated).toBe(true);
      expect(text).toContain("Packable Rain Shell 1");
      expect(text).toContain("financial_status: paid");
    });
  });

  describe("when a table has more columns than the budget shows", () => {
    const rows = Array.from({ length: 3 }, (_, index) => {
      const row: Record<string, unknown> = { id: 14100000000001 + index, gift_card: false, taxable: index > 0 };
      for (let column = 0; column < 20; column += 1) row[`c${column}`] = `${column}-${index}`;
      row.title = `Product ${index}`;
      return row;
    });
    const { text } = cleanObservation({ orders: Array.from({ length: 40 }, () => ({ note: "x".repeat(150), line_items: rows })) }, { maxChars: 2000 });

    it("shows name and title columns first and flag-only columns last", () => {
      const header = text.split("\n").find((line) => line.includes("(") && line.includes("more columns")) ?? "";
      expect(header).toContain("title");
      expect(header).not.toContain("gift_card");
    });
  });

  describe("when an error carries a server stack trace", () => {
    it("drops the trace (as for Error objects) and keeps message and code", () => {
      const body = {
        errors: [{ message: 'Cannot query field "emial" on type "User".', extensions: { code: "GRAPHQL_VALIDATION_FAILED", stacktrace: ["GraphQLError: Cannot query field", "    at Object.Field (/app/node_modules/graphql/validation/rules/FieldsOnCorrectTypeRule.js:51:13)"] } }],
      };
      const { text } = cleanObservation(body);
      expect(text).toContain('Cannot query field "emial" on type "User".');
      expect(text).toContain("GRAPHQL_VALIDATION_FAILED");
      expect(text).not.toContain("FieldsOnCorrectTypeRule");
    });
  });

  describe("with a dense API record (values shaped like Stripe's and AWS's documented responses)", () => {
    const charge = {
      id: "ch_3MmlLrLkdIwHu7ix0snN0B15",
      object: "charge",
      amount: 1099,
      currency: "usd",
      status: "succeeded",
      refunds: { object: "list", data: [], has_more: false, total_count: 0, url: "/v1/charges/ch_3MmlLrLkdIwHu7ix0snN0B15/refunds" },
      disputes: { object: "list", data: [], has_more: true, total_count: 3, url: "/v1/charges/ch_3MmlLrLkdIwHu7ix0snN0B15/disputes" },
    };
    const instance = {
      Reservations: [
        {
          OwnerId: "111122223333",
          Instances: [
            {
              InstanceId: "i-1234567890abcdef0",
              AmiLaunchIndex: 0,
              SubnetId: "subnet-04a636d18e83cfacb",
              VpcId: "vpc-1234567890abcdef0",
              State: { Code: 16, Name: "running" },
              NetworkInterfaces: [{ NetworkInterfaceId: "eni-0e3b3b3b3b3b3b3b3", OwnerId: "111122223333", SubnetId: "subnet-04a636d18e83cfacb", VpcId: "vpc-1234567890abcdef0", Description: "primary interface", Attachment: { DeviceIndex: 0, Status: "attached" } }],
            },
          ],
        },
      ],
      ResponseMetadata: { RequestId: "5f6c7b1a-1111-2222-3333-444455556666", HTTPStatusCode: 200, RetryAttempts: 0 },
    };

    it("writes the envelope of an empty list as one marker, and keeps one that counts items not included", () => {
      const { text, notes } = cleanObservation(charge);
      expect(text).toContain("refunds: (an empty list)");
      expect(text).toContain("total_count: 3");
      expect(notes.join(" ")).toMatch(/wrote 1 envelope\(s\) of an empty list/);
    });

    it("drops ids repeating the enclosing record's field of the same name, and zero position and retry counters", () => {
      const { text, notes } = cleanObservation(instance);
      expect(text.match(/subnet-04a636d18e83cfacb/g)).toHaveLength(1);
      expect(text.match(/111122223333/g)).toHaveLength(1);
      expect(text).toContain("eni-0e3b3b3b3b3b3b3b3");
      expect(text).toContain("HTTPStatusCode: 200");
      expect(text).not.toMatch(/AmiLaunchIndex|DeviceIndex|RetryAttempts/);
      expect(notes.join(" ")).toMatch(/dropped 3 field\(s\) repeating the same field of their enclosing record/);
      expect(notes.join(" ")).toMatch(/dropped 3 zero position or retry counter/);
    });

    it("drops Jira's expand echo of the request and keeps the issue's key, status and summary", () => {
      const { text, notes } = cleanObservation({ expand: "names,schema", startAt: 0, total: 1, issues: [{ expand: "operations,editmeta,changelog,renderedFields", key: "HBR-12", fields: { summary: "Crane 2 maintenance", status: { name: "In Progress" } } }] });
      expect(text).not.toMatch(/expand|renderedFields/);
      expect(text).toContain("HBR-12");
      expect(text).toContain("In Progress");
      expect(notes.join(" ")).toMatch(/dropped transport\/metadata fields \(expand/);
    });

    it("keeps a repeated id when keep or drop patterns are given (the path decides)", () => {
      const { text } = cleanObservation(instance, { keep: ["InstanceId"] });
      expect(text.match(/subnet-04a636d18e83cfacb/g)).toHaveLength(2);
    });
  });
});
