"""Translation validation: are two forms of an expression or a program the same under the facts?"""
