const order = await lookup_order({ id: 42 })
const hits = await catalog.serch("orders")
return [order, hits]
