interface A { b: number }
enum E { X = 1 }
namespace N { export const y = 2 }
class C { constructor(private v: number) {} }
const a = { b: 1 } satisfies A;
new C(E.X) as unknown as number