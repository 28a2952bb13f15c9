declare const q: number;
function f(a: string): void;
function f(a: any) {}
f("x")!