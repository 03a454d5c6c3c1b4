RATE = 10


def add(a, b):
    return a + b


def scaled(x):
    if x > 100:
        return x * RATE
    return x
