# expect-error: 7:33 a lambda that uses the enclosing function's variable 'k'
# cyocl-limit: a closure over a variable that changes after the lambda is made (the loop's k: Python reads
# it when the lambda is called, so every lambda sees the last k; cyocl copies values, and refuses this)
def adders(int n):
    fs = []
    for k in range(n):
        fs.append(lambda x: x + k)
    return fs
