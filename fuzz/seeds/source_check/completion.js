const x = 1;
// trailing
x * 2;;
function f() {}