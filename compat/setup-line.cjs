// Runs before every test file of the compat run: tells tests which LangChain line they run on,
// so a test that needs something only the 1.x line has can skip itself with a stated reason:
//   const it13 = process.env.REINS_LANGCHAIN_LINE === "0.3" ? it.skip : it;
process.env.REINS_LANGCHAIN_LINE = "0.3";
