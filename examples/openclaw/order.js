const order = await lookup_order({ id: 'A1' })
const [report] = await catalog.search('sales report', { limit: 1 })
const saved = await results.save(order)
const docs = await MCP.docs.search({ q: 'refunds' })
text(`${order.status}, report tool: ${report.callableName}`)
return { status: order.status, back: await results.load(saved.id), docs: docs.structuredContent, report: await report({}) }
