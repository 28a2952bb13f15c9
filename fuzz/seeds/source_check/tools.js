const hits = await tools.search("read a file");
const f = await tools.call(hits[0].id, { path: "a" });
f.content.length